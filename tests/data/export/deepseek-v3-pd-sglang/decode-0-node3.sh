#!/bin/sh
# DeepSeek-V3 decode instance 0, node rank 3 of 9, host node7: sglang main launch from deepseek-v3-pd-h100.json plans[0].roles[1]
# checked against lib/export/flags/sglang.json for sglang main
cd "$(dirname "$0")"
exec python3 -m sglang.launch_server \
    --model-path deepseek-ai/DeepSeek-V3 \
    --tp-size 72 \
    --dp-size 72 \
    --enable-dp-attention \
    --nnodes 9 \
    --node-rank 3 \
    --dist-init-addr node4:5000 \
    --ep-size 72 \
    --moe-a2a-backend deepep \
    --deepep-mode low_latency \
    --moe-dense-tp-size 1 \
    --enable-dp-lm-head \
    --ep-num-redundant-experts 32 \
    --init-expert-location expert-location-decode.json \
    --enable-eplb \
    --eplb-rebalance-num-iterations 1000 \
    --disable-shared-experts-fusion \
    --enable-two-batch-overlap \
    --mem-fraction-static 0.835 \
    --max-running-requests 18432 \
    --chunked-prefill-size 294912 \
    --cuda-graph-max-bs-decode 256 \
    --disaggregation-mode decode \
    --kv-cache-dtype bf16 \
    --host 0.0.0.0 \
    --port 30000
