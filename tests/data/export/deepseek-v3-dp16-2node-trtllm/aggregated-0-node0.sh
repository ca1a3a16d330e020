#!/bin/sh
# DeepSeek-V3 aggregated instance 0, node rank 0 of 2, host node0: trtllm 1.2.0rc6 launch from deepseek-v3-dp16-2node-h200.json plans[0].roles[0]
# checked against lib/export/flags/trtllm.json for trtllm 1.2.0rc6
# note: the KV cache takes trtllm-serve's default share of the memory left after the weights: the plan's memory_fraction_static counts the weights in, so it is not that fraction
# note: mpirun starts all 16 ranks from here, 8 on each of the 2 nodes, over ssh: every node must reach the others without a password, have trtllm-llmapi-launch on its PATH and the model at the same path; trtllm-serve runs on rank 0, on this node (add --allow-run-as-root to mpirun where it runs as root)
cd "$(dirname "$0")"
exec mpirun -H node0:8,node1:8 -n 16 trtllm-llmapi-launch trtllm-serve deepseek-ai/DeepSeek-V3 \
    --backend pytorch \
    --tp_size 16 \
    --pp_size 1 \
    --ep_size 16 \
    --max_batch_size 64 \
    --max_num_tokens 8192 \
    --max_seq_len 4096 \
    --extra_llm_api_options aggregated-0-node0.yaml \
    --host 0.0.0.0 \
    --port 8000
