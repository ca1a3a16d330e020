#!/bin/sh
# Qwen3-235B-A22B decode instance 0, node rank 0 of 1, host node1: vllm-ascend main launch from qwen3-235b-pd-otp4-910b.json plans[0].roles[1]
# checked against lib/export/flags/vllm_ascend.json for vllm-ascend main
# note: recompute_scheduler_enable is on: vllm-ascend main runs the O-projection TP only with the recompute scheduler (from 0.23.0rc1)
export HCCL_SOCKET_IFNAME=eth0
export GLOO_SOCKET_IFNAME=eth0
export TP_SOCKET_IFNAME=eth0
export HCCL_EXEC_TIMEOUT=204
export HCCL_CONNECT_TIMEOUT=120
exec vllm serve Qwen/Qwen3-235B-A22B \
    --tensor-parallel-size 1 \
    --data-parallel-size 16 \
    --enable-expert-parallel \
    --gpu-memory-utilization 0.95 \
    --max-num-seqs 48 \
    --max-num-batched-tokens 4096 \
    --max-model-len 4096 \
    --kv-cache-dtype auto \
    --kv-transfer-config '{"engine_id":"decode-0","kv_connector":"MooncakeConnectorV1","kv_connector_extra_config":{"decode":{"dp_size":16,"tp_size":1},"prefill":{"dp_size":16,"tp_size":1}},"kv_port":"36000","kv_role":"kv_consumer"}' \
    --additional-config '{"finegrained_tp_config":{"oproj_tensor_parallel_size":4},"recompute_scheduler_enable":true}' \
    --host 0.0.0.0 \
    --port 8000
