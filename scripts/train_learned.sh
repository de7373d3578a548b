#!/usr/bin/env bash
# The learned bot's recipe (docs/bots.md, "learned"): expert self-play with records for every
# preset, exported to Parquet, then `laizi train bc` for the Wuhan family and for Baishan.
#
#   bash scripts/train_learned.sh OUT [HANDS_WUHAN_MAIN] [HANDS_OTHER] [HANDS_BAISHAN]
#
# HANDS_WUHAN_MAIN hands of wuhan-hongzhong-kaikou (the preset of issue 29's goal), HANDS_OTHER
# of each other Wuhan preset, HANDS_BAISHAN of Baishan. Settings from the environment:
# BOT (default expert@100, in all four seats), SEED (default 29: preset k uses SEED + k),
# WORKERS (simulate's worker processes, default 1), EPOCHS (default 6), HIDDEN (default 256,256),
# THREADS (torch's, default 1). Every step is resumable: a preset whose records are all there is
# not played again, an export already written is kept, and training continues its checkpoint.
# The models end in OUT/models (learned-wuhan.* and learned-baishan.*); copy them into
# src/laizi/data/models/ to ship them.
set -euo pipefail
out=${1:?usage: train_learned.sh OUT [HANDS_WUHAN_MAIN] [HANDS_OTHER] [HANDS_BAISHAN]}
main_hands=${2:-20000}
other_hands=${3:-5000}
baishan_hands=${4:-20000}
bot=${BOT:-expert@100}
seed=${SEED:-29}
workers=${WORKERS:-1}
epochs=${EPOCHS:-6}
hidden=${HIDDEN:-256,256}
threads=${THREADS:-1}
presets=(wuhan-hongzhong-kaikou wuhan-hongzhong-koukou wuhan-facai-kaikou wuhan-facai-koukou
    wuhan-qipi-kaikou wuhan-qipi-koukou baishan)
recipe="simulate --bots $bot x4, per preset k: --seed $seed+k; hands $main_hands"
recipe+=" (wuhan-hongzhong-kaikou) / $other_hands (other Wuhan) / $baishan_hands (baishan)"
mkdir -p "$out/records" "$out/data" "$out/models"
k=0
for preset in "${presets[@]}"; do
    case $preset in
        wuhan-hongzhong-kaikou) hands=$main_hands ;;
        baishan) hands=$baishan_hands ;;
        *) hands=$other_hands ;;
    esac
    records="$out/records/$preset"
    if [ "$(find "$records" -name 'hand-*.jsonl' 2>/dev/null | wc -l)" -lt "$hands" ]; then
        rm -rf "$records"
        laizi simulate --bots "$bot,$bot,$bot,$bot" --rules "$preset" --hands "$hands" \
            --seed $((seed + k)) --workers "$workers" --records "$records" --json >/dev/null
    fi
    if [ ! -e "$out/data/$preset/part-00000.parquet" ]; then
        rm -rf "$out/data/$preset"
        laizi export "$records" --out "$out/data/$preset" --json >/dev/null
    fi
    k=$((k + 1))
done
for game in wuhan baishan; do
    data=()
    for preset in "${presets[@]}"; do
        if [[ $preset == "$game"* ]]; then data+=(--data "$out/data/$preset"); fi
    done
    resume=()
    if [ -e "$out/train-$game/checkpoint.pt" ]; then resume=(--resume); fi
    laizi train bc "${data[@]}" --game "$game" --out "$out/train-$game" --epochs "$epochs" \
        --hidden "$hidden" --threads "$threads" --seed "$seed" --recipe "$recipe" \
        --data-seed "$seed" "${resume[@]}"
    cp "$out/train-$game/learned-$game".{npz,json,md} "$out/models/"
done
echo "models in $out/models" >&2
