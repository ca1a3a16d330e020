#!/bin/sh
# DeepSeek-V3 decode instance 0, node rank 1 of 9, host node5: vllm main launch from deepseek-v3-pd-h100.json plans[0].roles[1]
# checked against lib/export/flags/vllm.json for vllm main
export VLLM_NIXL_SIDE_CHANNEL_HOST=node5
export VLLM_NIXL_SIDE_CHANNEL_PORT=5600
exec vllm serve deepseek-ai/DeepSeek-V3 \
    --tensor-parallel-size 1 \
    --data-parallel-size 72 \
    --data-parallel-size-local 8 \
    --data-parallel-address node4 \
    --data-parallel-start-rank 8 \
    --headless \
    --enable-expert-parallel \
    --all2all-backend deepep_low_latency \
    --enable-eplb \
    --eplb-config '{"num_redundant_experts":32}' \
    --enable-dbo \
    --gpu-memory-utilization 0.92 \
    --max-num-seqs 256 \
    --max-num-batched-tokens 4096 \
    --max-model-len 2100 \
    --kv-cache-dtype auto \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}'
