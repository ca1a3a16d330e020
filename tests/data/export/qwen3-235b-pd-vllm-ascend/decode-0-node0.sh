#!/bin/sh
# Qwen3-235B-A22B decode instance 0, node rank 0 of 1, host node1: vllm-ascend main launch from qwen3-235b-pd-otp4-910b.json plans[0].roles[1]
exec vllm serve Qwen/Qwen3-235B-A22B \
    --tensor-parallel-size 1 \
    --data-parallel-size 16 \
    --enable-expert-parallel \
    --gpu-memory-utilization 0.95 \
    --max-num-seqs 48 \
    --max-num-batched-tokens 4096 \
    --max-model-len 4096 \
    --kv-cache-dtype auto \
    --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_consumer"}' \
    --additional-config '{"finegrained_tp_config":{"oproj_tensor_parallel_size":4}}'
