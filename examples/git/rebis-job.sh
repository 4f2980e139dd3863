#!/bin/sh
# The referee's CI job for a game of Rebis played through a git repository (docs/git.md).
#
# Usage: sh rebis-job.sh [--check] [REVISIONS]
#   REVISIONS is a range OLD..NEW (a push's "before" and "after", a pull request's base and
#   head) or one commit (default HEAD: what it changed). OLD may be
#   0000000000000000000000000000000000000000, which is what CI gives as the "before" of a
#   branch's first push: then everything NEW holds is new.
#   The files NEW adds or changes under moves/ since OLD (since where NEW left it) must all be
#   move files named moves/turn-NNN-PLAYER.yaml (moves/.gitkeep aside); any other name stops
#   the job before any move is applied. Each move file is then applied as it stands in NEW, in
#   turn order, with `rebis-pbm apply --as AUTHOR --check-name`: AUTHOR is the author address
#   of the last commit that changed it, and a move for another player than the one registered
#   with that address is refused, as is a file whose name is not its own turn and player.
#   After each applied move the record and the public view are committed (the CI then pushes).
#   Private views never enter the repository: they are written to a temporary folder (players
#   get them by e-mail).
#   --check: a pull request's check, which runs WITHOUT the seed: `rebis-pbm check` checks each
#   move file's name, form, game and author, not the rules; nothing is written or committed.
#
# Environment: REBIS_PBM_SEED, the game's seed: only for the job run from the protected main
#   branch, never for --check (docs/git.md); REBIS_GAME, the record (default game.yaml);
#   REBIS_REFEREE_NAME and REBIS_REFEREE_EMAIL, who commits the record (default
#   "Rebis referee" <referee@localhost>).
# Output: a line per move file, then "N move(s) applied, M already applied (nothing changed)".
# Exit: 0 when every move file was applied, or had already been applied (or there was none);
#   2 for a file under moves/ that is not named as a move file, or bad usage; otherwise the
#   exit code of rebis-pbm for the first move not applied (1: against the rules, or not the
#   author's own move; 2: unreadable, or named for another turn or player; 75: the record was
#   busy, another rebis-pbm command held its lock for 30 s: not the move's fault, run the job
#   again). The moves before it are applied and committed, the later ones not tried.
set -eu

check=no
if [ "${1:-}" = "--check" ]; then check=yes; shift; fi
revisions=${1:-HEAD}
game=${REBIS_GAME:-game.yaml}
name=${REBIS_REFEREE_NAME:-Rebis referee}
email=${REBIS_REFEREE_EMAIL:-referee@localhost}
zero=0000000000000000000000000000000000000000
# The characters a move file's name may hold (listed, not a range: ranges depend on the locale).
safe='ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-'

top=$(git rev-parse --show-toplevel)
cd "$top"
secret="${game%.yaml}.secret.yaml"
views="${game%.yaml}.views"
if git ls-files --error-unmatch -- "$secret" >/dev/null 2>&1; then
    echo "rebis-job: $secret is committed: every player can read the seed and so every hand;" \
         "start a new game and keep the seed in a CI secret only" >&2
    exit 2
fi
if [ "$check" = yes ] && [ -n "${REBIS_PBM_SEED:-}" ]; then
    echo "rebis-job: --check runs without the seed, but REBIS_PBM_SEED is set: a pull request's" \
         "check must never see it (docs/git.md); remove it from that job" >&2
    exit 2
fi

bad_revisions() {
    echo "rebis-job: $revisions: give a commit, or a range OLD..NEW of this repository" \
         "(OLD may be $zero: every commit of NEW)" >&2
    exit 2
}
commit_of() { git rev-parse --verify --quiet "$1^{commit}"; }
# base: the commit the new moves are compared with ("" for none: all of new is new); span: the
# commits that brought them, for `git log`.
case $revisions in
    *..*)
        old=${revisions%%..*}
        new=$(commit_of "${revisions#*..}") || bad_revisions
        if [ "$old" = "$zero" ]; then   # a new branch: everything it holds is new
            base=
        else
            old=$(commit_of "$old") || bad_revisions
            # From where NEW left OLD: a pull request's branch point, or the push's "before".
            base=$(git merge-base "$old" "$new") || bad_revisions
        fi ;;
    *)
        new=$(commit_of "$revisions") || bad_revisions
        base=$(commit_of "$new^") || base= ;;
esac
if [ -n "$base" ]; then span="$base..$new"; else span=$new; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/moves"

refuse_name() {  # $1: the path, $2: what is wrong
    shown=$(printf '%s' "$1" | tr -c '[:print:]' '?')
    by=$(git --literal-pathspecs log -1 --format='%h by %ae' "$span" -- "$1" 2>/dev/null || true)
    echo "rebis-job: $shown (commit ${by:-?}): $2; only move files go in moves/, each named" \
         "moves/turn-NNN-PLAYER.yaml after its turn and player (e.g. moves/turn-007-alice.yaml)." \
         "Rename or remove it in a new commit; no move was applied" >&2
    exit 2
}

# The move files added or changed, as they stand in NEW. The names come NUL-separated (-z), so
# that none is split at a space or quoted by git; each NUL becomes a line break, and a line
# break inside a name becomes \001, which the name check refuses.
git diff-tree -r -z --name-only --diff-filter=AMT "${base:-$(git hash-object -t tree /dev/null)}" \
    "$new" -- moves/ > "$work/names.z"
tr '\n\000' '\001\n' < "$work/names.z" > "$work/names"
: > "$work/moves.list"
while IFS= read -r file <&3; do
    [ "$file" = moves/.gitkeep ] && continue
    base_name=${file#moves/}
    case $base_name in
        */*) refuse_name "$file" "it is in a folder inside moves/" ;;
        *[!$safe]*)
            refuse_name "$file" "its name holds a space or another character no move file has" ;;
        turn-*-*.yaml) ;;
        *) refuse_name "$file" "this is not a move file's name" ;;
    esac
    # The move as it stands in NEW: data only, never checked out or run.
    if ! git cat-file blob "$new:$file" > "$work/$file" 2>/dev/null; then
        refuse_name "$file" "it is not a file"
    fi
    echo "$file" >> "$work/moves.list"
done 3< "$work/names"

applied=0 repeated=0 checked=0
# In turn order (the number after "turn-"), whatever order the commits came in.
sort -t - -k 2,2n "$work/moves.list" > "$work/moves.sorted"
while IFS= read -r file <&3; do
    # Sent by the author of the last commit that changed it.
    author=$(git log -1 --format=%ae "$span" -- "$file")
    short=$(git log -1 --format=%h "$span" -- "$file")
    if [ "$check" = yes ]; then
        if said=$(cd "$work" && rebis-pbm check "$top/$game" "$file" --as "$author" \
                  --check-name < /dev/null); then
            echo "$file ($short, $author): $said"
            checked=$((checked + 1))
            continue
        else
            status=$?
            echo "rebis-job: $file (commit $short by $author) would be refused" >&2
            exit "$status"
        fi
    fi
    cp "$game" "$work/record-before"
    rm -rf "$work/views"
    if said=$(cd "$work" && rebis-pbm apply "$top/$game" "$file" --as "$author" \
              --check-name --views-dir "$work/views" < /dev/null); then
        echo "$file ($short, $author): $said"
    else
        status=$?
        if [ "$status" -eq 75 ]; then  # EX_TEMPFAIL: the lock, not the move
            echo "rebis-job: $file (commit $short by $author) was not applied: the record was" \
                 "busy; nothing changed, run the job again" >&2
        else
            echo "rebis-job: $file (commit $short by $author) was refused; the record is" \
                 "unchanged" >&2
        fi
        exit "$status"
    fi
    if cmp -s "$work/record-before" "$game"; then  # already applied: nothing changed
        repeated=$((repeated + 1))
        continue
    fi
    applied=$((applied + 1))
    mkdir -p "$views"
    cp "$work/views/public.yaml" "$work/views/public.txt" "$views/"
    git add -- "$game" "$views/public.yaml" "$views/public.txt"
    git -c user.name="$name" -c user.email="$email" commit --quiet \
        -m "Apply $file from $author" -m "$said"
done 3< "$work/moves.sorted"
if [ "$check" = yes ]; then
    echo "rebis-job: $checked move file(s) checked (name, form, game and author; the rules are" \
         "checked once merged); nothing committed"
else
    echo "rebis-job: $applied move(s) applied, $repeated already applied (nothing changed)"
fi
