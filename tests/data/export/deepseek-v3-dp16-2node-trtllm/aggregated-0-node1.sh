#!/bin/sh
# DeepSeek-V3 aggregated instance 0, node rank 1 of 2, host node1: trtllm 1.2.0rc6 launch from deepseek-v3-dp16-2node-h200.json plans[0].roles[0]
# checked against lib/export/flags/trtllm.json for trtllm 1.2.0rc6
# note: nothing to start here: mpirun in aggregated-0-node0.sh starts this node's ranks over ssh; this only checks that trtllm-llmapi-launch is on the PATH
exec sh -c 'command -v trtllm-llmapi-launch'
