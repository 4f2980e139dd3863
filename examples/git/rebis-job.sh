#!/bin/sh
# The referee's CI job for a game of Rebis played through a git repository (docs/git.md).
#
# Usage: sh rebis-job.sh [--check] [REVISIONS]
#   REVISIONS is one commit (default HEAD) or a range OLD..NEW (each of its commits, oldest
#   first). Every move file a commit adds or changes under moves/ is applied with
#   `rebis-pbm apply --as AUTHOR`, AUTHOR being the commit's author address: a move for another
#   player than the one registered with that address is refused. After each accepted move the
#   record and the public view are committed (the CI then pushes). Private views never enter
#   the repository: they are written to a temporary folder (players get them by e-mail).
#   --check: apply to a scratch copy of the record and commit nothing (pull request checks).
#
# Environment: REBIS_PBM_SEED, the game's seed (a CI secret; never commit it);
#   REBIS_GAME, the record (default game.yaml); REBIS_REFEREE_NAME and REBIS_REFEREE_EMAIL, who
#   commits the record (default "Rebis referee" <referee@localhost>).
# Exit: 0 when every move was applied (or there was none); otherwise the exit code of
#   rebis-pbm for the first refused move (1: against the rules, or not the author's own move;
#   2: unreadable), the moves before it being applied and committed, the later ones not tried.
set -eu

check=no
if [ "${1:-}" = "--check" ]; then check=yes; shift; fi
revisions=${1:-HEAD}
game=${REBIS_GAME:-game.yaml}
name=${REBIS_REFEREE_NAME:-Rebis referee}
email=${REBIS_REFEREE_EMAIL:-referee@localhost}

top=$(git rev-parse --show-toplevel)
cd "$top"
secret="${game%.yaml}.secret.yaml"
views="${game%.yaml}.views"
if git ls-files --error-unmatch -- "$secret" >/dev/null 2>&1; then
    echo "rebis-job: $secret is committed: every player can read the seed and so every hand;" \
         "start a new game and keep the seed in a CI secret only" >&2
    exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
record="$top/$game"
if [ "$check" = yes ]; then
    cp "$game" "$work/game.yaml"
    record="$work/game.yaml"
fi

case $revisions in
    *..*) commits=$(git rev-list --reverse "$revisions" 2>/dev/null) || commits=BAD ;;
    *) commits=$(git rev-parse --verify --quiet "$revisions^{commit}") || commits=BAD ;;
esac
if [ "$commits" = BAD ]; then
    echo "rebis-job: $revisions: give a commit, or a range OLD..NEW of this repository" >&2
    exit 2
fi

count=0
for commit in $commits; do
    author=$(git log -1 --format=%ae "$commit")
    short=$(git rev-parse --short "$commit")
    files=$(git diff-tree --root --no-commit-id --name-only -r --diff-filter=AM "$commit" \
            -- 'moves/*.yaml' 'moves/*.yml')
    for file in $files; do
        # The move as committed (a later commit may have changed the file again).
        mkdir -p "$work/$(dirname "$file")"
        git show "$commit:$file" > "$work/$file"
        rm -rf "$work/views"
        if said=$(cd "$work" && rebis-pbm apply "$record" "$file" --as "$author" \
                  --views-dir "$work/views"); then
            echo "$file ($short, $author): $said"
            count=$((count + 1))
        else
            status=$?
            echo "rebis-job: $file (commit $short by $author) was refused; the record is" \
                 "unchanged" >&2
            exit "$status"
        fi
        if [ "$check" = no ] && [ -f "$work/views/public.yaml" ]; then  # none: sent twice
            mkdir -p "$views"
            cp "$work/views/public.yaml" "$work/views/public.txt" "$views/"
            git add -- "$game" "$views/public.yaml" "$views/public.txt"
            git -c user.name="$name" -c user.email="$email" commit --quiet \
                -m "Apply $file from $author" -m "$said"
        fi
    done
done
if [ "$check" = yes ]; then
    echo "rebis-job: $count move(s) checked; nothing committed"
else
    echo "rebis-job: $count move(s) applied"
fi
