#!/usr/bin/env bash
# A fair-deal game with signed moves, from `new` to the final score and `verify`, through the
# rebis-pbm CLI, the way a referee and three players would (docs/audit.md, "What you must trust,
# and what you need not"):
#   1. each player makes an SSH key (ssh-keygen, ed25519; no passphrase for the demo);
#   2. the referee creates the game in its join phase with each player's public key (new --key):
#      the record commits to the seed, nobody has cards yet;
#   3. the deal takes two rounds (rebis-pbm/5): each player sends a commitment to a join text of
#      their own, then, once every commitment is in, the join text itself, both signed by their
#      registered key (so the referee could not have written them: verify calls the deal fair);
#   4. the deck is shuffled from the seed and every player's entropy; every move is chosen by
#      the greedy bot for its player, signed with that player's key and applied;
#   5. verify checks every signature and says whose entropy went into the deal (deal_from).
# The seed is fixed with --insecure-seed so that the deal is the same on every run (a real game
# leaves --seed out: 128 random bits). The bundled examples/moves/ are the moves of the example
# game of docs/ (a referee deal of the same seed); a fair deal deals other cards, so the bot plays.
# Usage: bash examples/play-example.sh OUTPUT_DIR   (make demo uses build/demo)
set -euo pipefail
out="${1:-build/demo}"
rm -rf "$out" && mkdir -p "$out/keys" "$out/moves"
game="$out/game.yaml"
players=(alice bob carol)
command -v ssh-keygen >/dev/null || { echo "the demo needs ssh-keygen (openssh-client)" >&2; exit 2; }

sign() {  # sign FILE PLAYER: writes FILE.sig, which apply reads beside the move file
    ssh-keygen -q -Y sign -f "$out/keys/$2" -n rebis-pbm "$1" 2>/dev/null
}

echo "== each player makes a key: ssh-keygen -t ed25519 (in $out/keys/)"
for p in "${players[@]}"; do
    ssh-keygen -q -t ed25519 -N "" -C "$p" -f "$out/keys/$p"
done
echo
echo "== rebis-pbm new: a 3-player game in its join phase, each player's public key registered"
echo "   (a fixed seed, for a reproducible demo)"
rebis-pbm new "$game" --player alice --player bob --player carol \
    --key "alice=$out/keys/alice.pub" --key "bob=$out/keys/bob.pub" --key "carol=$out/keys/carol.pub" \
    --seed "rebis-pbm example game" --insecure-seed --game-id example
echo
echo "== round 1 of the deal: each player sends a commitment to a join text of their own, signed"
echo "   (rebis-pbm play on their view does it all; here the plain way, with fixed texts for a"
echo "   reproducible demo: the commitment is sha256 of 'rebis-pbm-commitment', game, name, text)"
for p in "${players[@]}"; do
    words="$p's own words, which nobody could know when the seed was committed"
    commitment=$(printf '%s\n%s\n%s\n%s' rebis-pbm-commitment example "$p" "$words" \
                 | sha256sum | cut -d' ' -f1)
    move="$out/moves/commitment-$p.yaml"
    {
        echo "game: example"
        echo "player: $p"
        # The game's header digest, as the join template names it: the signed commitment binds to it.
        grep '^header_sha256: ' "$game"
        echo "commitment: $commitment"
    } > "$move"
    sign "$move" "$p"
    printf '%s: ' "$(basename "$move")"
    rebis-pbm apply "$game" "$move"
done
echo
echo "== round 2: every commitment is in; each player sends the join text itself, naming the"
echo "   commitments it answers (after: the last commitment's chain digest), signed"
after=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["joins"][-1]["chain_sha256"])' "$game")
for p in "${players[@]}"; do
    join="$out/moves/join-$p.yaml"
    {
        echo "game: example"
        echo "player: $p"
        echo "after: $after"
        echo "join: $p's own words, which nobody could know when the seed was committed"
    } > "$join"
    sign "$join" "$p"
    printf '%s: ' "$(basename "$join")"
    rebis-pbm apply "$game" "$join"
done
echo
echo "== alice's view before the first move (what she would receive)"
rebis-pbm view "$game" --player alice
echo "== every move chosen by the greedy bot for its player, signed with their key, applied"
shown=0
while :; do
    to_move=$(rebis-pbm view "$game" --public --format json \
              | python3 -c 'import json, sys; print(json.load(sys.stdin).get("to_move", ""))')
    [ -n "$to_move" ] || break
    move="$out/moves/next.yaml"
    rebis-pbm bot "$game" --player "$to_move" --strategy greedy > "$move"
    turn=$(sed -n 's/^turn: //p' "$move")
    named="$out/moves/turn-$(printf '%03d' "$turn")-$to_move.yaml"
    mv "$move" "$named"
    sign "$named" "$to_move"
    printf '%s: ' "$(basename "$named")"
    rebis-pbm apply "$game" "$named"
    if [ "$shown" = 0 ] && [ "$turn" -ge 12 ]; then
        echo; echo "== the spectator view after turn $turn"
        rebis-pbm view "$game" --public
        shown=1
    fi
done
echo
echo "== final score"
rebis-pbm score "$game"
echo
echo "== rebis-pbm verify: the finished record reveals its seed and holds every signature, so"
echo "   anyone can check the whole game, and who could have steered the deal (deal_from)"
rebis-pbm verify "$game"
rebis-pbm verify "$game" --format json \
    | python3 -c 'import json, sys; r = json.load(sys.stdin); print("deal_from:", r["deal_from"])'
echo
echo "== pictures of the final table (SVG) and the game page for spectators"
rebis-pbm view "$game" --public --format svg > "$out/final.svg"
rebis-pbm view "$game" --player alice --format svg > "$out/final-alice.svg"
rebis-pbm site "$game" --out "$out/site"
echo
echo "Files: $game (record), $out/game.secret.yaml (seed), $out/game.views/ (views),"
echo "$out/keys/ (the players' keys), $out/moves/ (the signed join and move files)"
echo "Pictures: $out/final.svg (the public view), $out/final-alice.svg (alice's view);"
echo "game page: $out/site/index.html (open them in a browser)"
