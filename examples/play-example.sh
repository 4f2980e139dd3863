#!/usr/bin/env bash
# Play the bundled example game from `new` to the final score through the rebis-pbm CLI, the way a
# referee would: one `apply` per move file in examples/moves/, in turn order.
# Usage: bash examples/play-example.sh OUTPUT_DIR   (make demo uses build/demo)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-build/demo}"
rm -rf "$out" && mkdir -p "$out"
game="$out/game.yaml"

echo "== rebis-pbm new: a 3-player game with the example's seed"
rebis-pbm new "$game" --player alice --player bob --player carol \
    --seed "rebis-pbm example game" --insecure-seed --referee-deal --game-id example
echo
echo "== alice's view before the first move (what she would receive)"
rebis-pbm view "$game" --player alice
echo "== applying the move files of examples/moves/"
shown=0
for move in "$here"/moves/turn-*.yaml; do
    printf '%s: ' "$(basename "$move")"
    rebis-pbm apply "$game" "$move"
    turn=$(basename "$move" | sed 's/turn-0*\([0-9]*\)-.*/\1/')
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
echo "== rebis-pbm verify: the finished record reveals its seed, so anyone can check the whole game"
rebis-pbm verify "$game"
echo
echo "== pictures of the final table (SVG) and the game page for spectators"
rebis-pbm view "$game" --public --format svg > "$out/final.svg"
rebis-pbm view "$game" --player alice --format svg > "$out/final-alice.svg"
rebis-pbm site "$game" --out "$out/site"
echo
echo "Files: $game (record), $out/game.secret.yaml (seed), $out/game.views/ (views)"
echo "Pictures: $out/final.svg (the public view), $out/final-alice.svg (alice's view);"
echo "game page: $out/site/index.html (open them in a browser)"
