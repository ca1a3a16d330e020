#!/bin/sh
# DeepSeek-V3 aggregated instance 0, node rank 0 of 1, host node0: trtllm 1.2.0rc6 launch from deepseek-v3-tp8-h200.json plans[1].roles[0]
# checked against lib/export/flags/trtllm.json for trtllm 1.2.0rc6
# note: the KV cache takes trtllm-serve's default share of the memory left after the weights: the plan's memory_fraction_static counts the weights in, so it is not that fraction
cd "$(dirname "$0")"
exec trtllm-serve deepseek-ai/DeepSeek-V3 \
    --backend pytorch \
    --tp_size 8 \
    --pp_size 1 \
    --ep_size 1 \
    --max_batch_size 256 \
    --max_num_tokens 8192 \
    --max_seq_len 2048 \
    --extra_llm_api_options aggregated-0-node0.yaml \
    --host 0.0.0.0 \
    --port 8000
