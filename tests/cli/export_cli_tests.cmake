# moeplan export, driven as a user would: the written scripts equal the hand-written ones in
# tests/data/export, and a refused plan exits 2 naming the rule and creates no output directory.
set(plans ${SOURCE_DIR}/tests/data/plans)
set(expected ${SOURCE_DIR}/tests/data/export)

function(expect_same_file name written hand_written)
  file(READ ${written} got)
  file(READ ${hand_written} want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${name}: ${written} differs from ${hand_written}\n${got}")
  endif()
endfunction()

# A plan whose scenario named SGLang 0.5.4 exports for it without --engine, its scripts checked against 0.5.4.
set(out ${WORK_DIR}/export-plan-engine)
file(REMOVE_RECURSE ${out})
expect_success(export-plan-engine "for sglang 0.5.4" export --plan ${plans}/deepseek-v3-tp8-h200-sglang-0.5.4.json
               --model-path deepseek-ai/DeepSeek-V3 --out ${out})
file(READ ${out}/aggregated-0-node0.sh script)
string(FIND "${script}" "checked against lib/export/flags/sglang.json for sglang 0.5.4" checked)
if(checked EQUAL -1)
  message(FATAL_ERROR "export-plan-engine: the script names no check against sglang 0.5.4\n${script}")
endif()

# [doc-003] on SGLang main, the decode role reading a placement.
set(out ${WORK_DIR}/export-sglang)
file(REMOVE_RECURSE ${out})
# 17 files: deployment.json, 4 + 9 scripts, router.sh, lws.yaml (13 nodes), the decode expert locations.
expect_success(export-sglang "wrote 17 files" export --plan ${plans}/deepseek-v3-pd-h100.json --engine sglang
               --placement decode=${expected}/deepseek-v3-placement-288.json --model-path deepseek-ai/DeepSeek-V3 --out ${out})
expect_same_file(export-sglang-prefill ${out}/prefill-0-node0.sh ${expected}/deepseek-v3-pd-sglang/prefill-0-node0.sh)
expect_same_file(export-sglang-decode ${out}/decode-0-node3.sh ${expected}/deepseek-v3-pd-sglang/decode-0-node3.sh)
expect_same_file(export-sglang-router ${out}/router.sh ${expected}/deepseek-v3-pd-sglang/router.sh)
file(READ ${out}/lws.yaml manifest)
string(REGEX MATCHALL "kind: LeaderWorkerSet" groups "${manifest}")
list(LENGTH groups group_count)
if(NOT group_count EQUAL 2)
  message(FATAL_ERROR "export-sglang: lws.yaml has ${group_count} LeaderWorkerSets, expected 2 (one per instance)")
endif()
file(READ ${out}/expert-location-decode.json location)
string(JSON rows LENGTH "${location}" physical_to_logical_map)
string(JSON slots LENGTH "${location}" physical_to_logical_map 60)
if(NOT rows EQUAL 61 OR NOT slots EQUAL 288)
  message(FATAL_ERROR "export-sglang: expert-location map is ${rows} x ${slots}, expected 61 x 288")
endif()
file(READ ${out}/deployment.json deployment)
string(JSON decode_nodes LENGTH "${deployment}" roles 1 nodes)
if(NOT decode_nodes EQUAL 9)
  message(FATAL_ERROR "export-sglang: deployment.json lists ${decode_nodes} decode nodes, expected 9")
endif()

# [doc-003] on vLLM main, the decode node of [doc-004] on vllm-ascend main.
set(out ${WORK_DIR}/export-vllm)
file(REMOVE_RECURSE ${out})
expect_success(export-vllm "uncalibrated" export --plan ${plans}/deepseek-v3-pd-h100.json --engine vllm
               --model-path deepseek-ai/DeepSeek-V3 --out ${out})
expect_same_file(export-vllm-decode ${out}/decode-0-node1.sh ${expected}/deepseek-v3-pd-vllm/decode-0-node1.sh)
set(out ${WORK_DIR}/export-ascend)
file(REMOVE_RECURSE ${out})
expect_success(export-ascend "decode-0-node0.sh" export --plan ${plans}/qwen3-235b-pd-otp4-910b.json --engine vllm-ascend
               --model-path Qwen/Qwen3-235B-A22B --network-interface eth0 --out ${out})
expect_same_file(export-ascend-decode ${out}/decode-0-node0.sh ${expected}/qwen3-235b-pd-vllm-ascend/decode-0-node0.sh)

# The tp8 plan's unfused entry on TensorRT-LLM 1.2.0rc6: the script and the extra-options file it names.
set(out ${WORK_DIR}/export-trtllm)
file(REMOVE_RECURSE ${out})
expect_success(export-trtllm "wrote 3 files" export --plan ${plans}/deepseek-v3-tp8-h200.json --engine trtllm
               --engine-version 1.2.0rc6 --plan-index 1 --model-path deepseek-ai/DeepSeek-V3 --out ${out})
expect_same_file(export-trtllm-script ${out}/aggregated-0-node0.sh ${expected}/deepseek-v3-tp8-trtllm/aggregated-0-node0.sh)
expect_same_file(export-trtllm-options ${out}/aggregated-0-node0.yaml
                 ${expected}/deepseek-v3-tp8-trtllm/aggregated-0-node0.yaml)

# One instance over two nodes on TensorRT-LLM 1.2.0rc6: mpirun from node0's script, node1's only checks the
# wrapper; 4 files (deployment.json, two scripts, node0's options) and no lws.yaml.
set(out ${WORK_DIR}/export-trtllm-2node)
file(REMOVE_RECURSE ${out})
expect_success(export-trtllm-2node "wrote 4 files" export --plan ${plans}/deepseek-v3-dp16-2node-h200.json
               --engine trtllm --engine-version 1.2.0rc6 --out ${out})
foreach(name aggregated-0-node0.sh aggregated-0-node1.sh aggregated-0-node0.yaml)
  expect_same_file(export-trtllm-2node-${name} ${out}/${name} ${expected}/deepseek-v3-dp16-2node-trtllm/${name})
endforeach()

# Refusals: exit 2, the rule in the message, no output directory.
set(out ${WORK_DIR}/export-refused)
file(REMOVE_RECURSE ${out})
expect_failure(export-otp-mixed 2 "plans[0].roles[0].layout.otp: expected 1 outside a PD decode role" ${out}
               export --plan ${plans}/qwen3-235b-rl-otp4-910b.json --engine vllm-ascend --out ${out})
expect_failure(export-vllm-fused 2 "plans[0].roles[0].layout.fused_shared: expected 0 for vLLM" ${out}
               export --plan ${plans}/deepseek-v3-tp8-h200.json --engine vllm --out ${out})
expect_failure(export-sglang-otp 2 "layout.otp: expected 1 for SGLang" ${out}
               export --plan ${plans}/qwen3-235b-pd-otp4-910b.json --engine sglang --out ${out})
expect_failure(export-undocumented-version 2 "--engine-version: expected an SGLang release the flag table covers" ${out}
               export --plan ${plans}/deepseek-v3-pd-h100.json --engine sglang --engine-version 0.4.4 --out ${out})
expect_failure(export-release-lacks-flag 2 "the nearest release that runs it is --engine-version 0.4.7" ${out}
               export --plan ${plans}/deepseek-v3-pd-h100.json --engine sglang --engine-version 0.4.6 --out ${out})
expect_failure(export-vllm-placement 2 "--placement: expected no placement for vllm" ${out}
               export --plan ${plans}/deepseek-v3-pd-h100.json --engine vllm
               --placement ${expected}/deepseek-v3-placement-288.json --out ${out})
expect_failure(export-no-model-path 2 "--model-path: expected a local path or Hugging Face id for DeepSeek-V3" ${out}
               export --plan ${plans}/deepseek-v3-tp8-h200.json --engine vllm --plan-index 1 --out ${out})
expect_failure(export-ascend-no-interface 2 "--network-interface: expected the network interface" ${out}
               export --plan ${plans}/qwen3-235b-pd-otp4-910b.json --engine vllm-ascend
               --model-path Qwen/Qwen3-235B-A22B --out ${out})
expect_failure(export-plan-index 2 "--plan-index: expected an index below 2" ${out}
               export --plan ${plans}/deepseek-v3-tp8-h200.json --engine sglang --plan-index 2 --out ${out})
expect_failure(export-missing-plan 2 "no-such-plan.json: expected an existing, readable file" ${out}
               export --plan ${plans}/no-such-plan.json --engine sglang --out ${out})
expect_failure(export-trtllm-fused 2 "plans[0].roles[0].layout.fused_shared: expected 0 for trtllm" ${out}
               export --plan ${plans}/deepseek-v3-tp8-h200.json --engine trtllm --engine-version 1.2.0rc6 --out ${out})
expect_failure(export-trtllm-pd 2 "plans[0].roles[0].layout.redundant: expected 0 for trtllm" ${out}
               export --plan ${plans}/deepseek-v3-pd-h100.json --engine trtllm --engine-version 1.2.0rc6 --out ${out})
