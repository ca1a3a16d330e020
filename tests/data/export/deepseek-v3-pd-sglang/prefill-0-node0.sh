#!/bin/sh
# DeepSeek-V3 prefill instance 0, node rank 0 of 4, host node0: sglang main launch from deepseek-v3-pd-h100.json plans[0].roles[0]
# checked against lib/export/flags/sglang.json for sglang main
exec python3 -m sglang.launch_server \
    --model-path deepseek-ai/DeepSeek-V3 \
    --tp-size 32 \
    --dp-size 32 \
    --enable-dp-attention \
    --nnodes 4 \
    --node-rank 0 \
    --dist-init-addr node0:5000 \
    --ep-size 32 \
    --moe-a2a-backend deepep \
    --deepep-mode normal \
    --moe-dense-tp-size 1 \
    --enable-dp-lm-head \
    --ep-num-redundant-experts 32 \
    --enable-eplb \
    --eplb-rebalance-num-iterations 1000 \
    --disable-shared-experts-fusion \
    --enable-two-batch-overlap \
    --mem-fraction-static 0.85 \
    --max-running-requests 8192 \
    --chunked-prefill-size 524288 \
    --disaggregation-mode prefill \
    --kv-cache-dtype bf16 \
    --host 0.0.0.0 \
    --port 30000 \
    --disaggregation-bootstrap-port 8998
