# eplb-solve and eplb-simulate driven as a user would; included by run_cli_tests.cmake.
# Good runs write the placement contract; every bad input exits 2 naming the file and key, and
# leaves no output file behind.
set(eplb_dir ${WORK_DIR}/eplb)
file(REMOVE_RECURSE ${eplb_dir})
file(MAKE_DIRECTORY ${eplb_dir})
set(readme ${SOURCE_DIR}/validation/data/eplb_readme_example.json)
set(synthetic ${SOURCE_DIR}/validation/data/eplb_deepseek_v3_synthetic.json)

# expect_success and expect_failure come from run_cli_tests.cmake, which includes this file.
# The README case: never above the published placement's busiest GPU (156 and 179.5, by hand).
set(placement ${eplb_dir}/placement.json)
expect_success(eplb-readme "hierarchical placement" eplb-solve --loads ${readme} --nodes 2 --gpus 8 --slots 16 --out ${placement})
file(READ ${placement} placement_json)
foreach(layer_and_limit "0;156" "1;179.5")
  list(GET layer_and_limit 0 layer)
  list(GET layer_and_limit 1 limit)
  string(JSON reached GET "${placement_json}" max_gpu_load ${layer})
  if(reached GREATER limit)
    message(FATAL_ERROR "eplb-readme: layer ${layer} max GPU load ${reached} above the published ${limit}")
  endif()
endforeach()
string(JSON slots LENGTH "${placement_json}" phy2log 0)
if(NOT slots EQUAL 16)
  message(FATAL_ERROR "eplb-readme: phy2log row has ${slots} slots, expected 16")
endif()

# Re-placement from the trivial-like previous placement with a move budget.
expect_success(eplb-moves "moves" eplb-solve --loads ${readme} --nodes 2 --gpus 8 --slots 16 --previous ${placement}
                    --max-moves 2 --out ${eplb_dir}/moved.json)
file(READ ${eplb_dir}/moved.json moved_json)
foreach(layer 0 1)
  string(JSON moves GET "${moved_json}" moves ${layer})
  if(moves GREATER 2)
    message(FATAL_ERROR "eplb-moves: layer ${layer} made ${moves} moves, the budget is 2")
  endif()
endforeach()

# DeepSeek-V3 (61 layers, 3 dense): SGLang's file has one row per model layer, 288 slots each.
set(sglang ${eplb_dir}/expert_location.json)
expect_success(eplb-deepseek "Policies compared" eplb-solve --loads ${synthetic} --model ${SOURCE_DIR}/models/deepseek-v3.yaml
                    --nodes 4 --gpus 32 --slots 288 --out ${eplb_dir}/deepseek.json --sglang-out ${sglang})
file(READ ${sglang} sglang_json)
string(JSON rows LENGTH "${sglang_json}" physical_to_logical_map)
string(JSON row_slots LENGTH "${sglang_json}" physical_to_logical_map 60)
if(NOT rows EQUAL 61 OR NOT row_slots EQUAL 288)
  message(FATAL_ERROR "eplb-deepseek: SGLang map is ${rows} x ${row_slots}, expected 61 x 288")
endif()

expect_success(eplb-simulate "GPU utilisation" eplb-simulate --ep-sizes 8 64 --batches 1 --layers 1 --tokens-per-gpu 64)
# Without a model, DeepSeek's 8-of-4-groups defaults narrow to fewer groups or experts; given flags are checked.
expect_success(eplb-simulate-one-group "grouped top-8 routing over 1 of 1 groups" eplb-simulate --groups 1 --ep-sizes 8 --batches 1 --layers 1)
expect_success(eplb-simulate-few-experts "grouped top-4 routing over 4 of 8 groups" eplb-simulate --experts 8 --groups 8 --ep-sizes 8 --batches 1 --layers 1)
# NaN fails every comparison, so CLI::Range alone would let it through.
expect_failure(eplb-simulate-nan-sigma 2 "--sigma: expected a finite number in [0, 10], got nan" ${eplb_dir}/none.json
               eplb-simulate --sigma nan --ep-sizes 8 --batches 1 --layers 1 --json ${eplb_dir}/none.json)
# One routing flag given narrows nothing else: --top-k alone leaves --topk-groups to follow --groups.
expect_success(eplb-simulate-top-k-alone "grouped top-2 routing over 1 of 1 groups" eplb-simulate --groups 1 --top-k 2
               --ep-sizes 8 --batches 1 --layers 1)
# Routing flags given with a model replace the model's values.
expect_success(eplb-simulate-model-flags "grouped top-3 routing over 1 of 2 groups" eplb-simulate
               --model ${models}/deepseek-v3.yaml --top-k 3 --topk-groups 1 --groups 2 --ep-sizes 8 --batches 1 --layers 1)
# A model's topk_groups narrows to fewer --groups like the defaults do (it used to blame a --topk-groups never typed).
expect_success(eplb-simulate-model-groups "grouped top-8 routing over 2 of 2 groups" eplb-simulate
               --model ${models}/deepseek-v3.yaml --groups 2 --ep-sizes 8 --batches 1 --layers 1)
expect_failure(eplb-simulate-topk-groups 2 "--topk-groups: expected at most --groups (2), got 4" ${eplb_dir}/none.json
               eplb-simulate --groups 2 --topk-groups 4 --ep-sizes 8 --batches 1 --layers 1 --json ${eplb_dir}/none.json)
# --experts sizes the skew model only: a model or a load log that fixes the experts refuses another count
# (it used to be replaced silently). DeepSeek-V3 has 256 routed experts.
expect_failure(eplb-simulate-experts-model 2 "--experts: expected the model's 256 experts or left out, got 64"
               ${eplb_dir}/none.json eplb-simulate --model ${models}/deepseek-v3.yaml --experts 64 --ep-sizes 8
               --batches 1 --layers 1 --json ${eplb_dir}/none.json)
expect_success(eplb-simulate-experts-same "GPU utilisation" eplb-simulate --model ${models}/deepseek-v3.yaml
               --experts 256 --ep-sizes 8 --batches 1 --layers 1)
expect_failure(eplb-simulate-experts-loads 2 "--experts: expected left out with --loads" ${eplb_dir}/none.json
               eplb-simulate --loads ${synthetic} --experts 64 --ep-sizes 8 --batches 1 --layers 1
               --json ${eplb_dir}/none.json)

# Bad inputs.
set(out ${eplb_dir}/bad.json)
file(WRITE ${eplb_dir}/nan.csv "layer,expert,count\n0,0,5\n0,1,nan\n")
expect_failure(eplb-nan 2 "nan.csv: line 3 count: expected an integer" ${out}
                      eplb-solve --loads ${eplb_dir}/nan.csv --nodes 1 --gpus 1 --slots 2 --out ${out})
file(WRITE ${eplb_dir}/negative.json [=[{"num_layers": 1, "num_experts": 2, "loads": [[5, -1]]}]=])
expect_failure(eplb-negative 2 "negative.json: loads[0][1]: expected a token count in [0, 2^40], got -1" ${out}
                      eplb-solve --loads ${eplb_dir}/negative.json --nodes 1 --gpus 1 --slots 2 --out ${out})
file(WRITE ${eplb_dir}/short_row.json [=[{"num_layers": 1, "num_experts": 3, "loads": [[5, 1]]}]=])
expect_failure(eplb-row-length 2 "short_row.json: loads[0]: expected a row of 3 counts (num_experts)" ${out}
                      eplb-solve --loads ${eplb_dir}/short_row.json --nodes 1 --gpus 1 --slots 3 --out ${out})
file(WRITE ${eplb_dir}/broken.json [=[{"num_layers": 1, "num_experts": 3, "loads": [[5, 1, 2]]]=])
expect_failure(eplb-malformed 2 "broken.json: expected valid JSON" ${out}
                      eplb-solve --loads ${eplb_dir}/broken.json --nodes 1 --gpus 1 --slots 3 --out ${out})
file(WRITE ${eplb_dir}/no_layers.json [=[{"num_experts": 2, "loads": [[5, 1]]}]=])
expect_failure(eplb-missing-key 2 "no_layers.json: num_layers: expected a positive integer (the key is missing)" ${out}
                      eplb-solve --loads ${eplb_dir}/no_layers.json --nodes 1 --gpus 1 --slots 2 --out ${out})
expect_failure(eplb-slots 2 "command line: --slots: expected a multiple of --gpus (8), got 20" ${out}
                      eplb-solve --loads ${readme} --nodes 2 --gpus 8 --slots 20 --out ${out})
expect_failure(eplb-groups 2 "command line: --groups: expected a divisor of the number of experts (12), got 5" ${out}
                      eplb-solve --loads ${readme} --nodes 1 --gpus 8 --slots 16 --groups 5 --out ${out})
expect_failure(eplb-hierarchical 2 "--policy: expected global or auto: hierarchical needs --groups (3) divisible by --nodes (2)" ${out}
                      eplb-solve --loads ${readme} --nodes 2 --gpus 8 --slots 16 --groups 3 --policy hierarchical --out ${out})
expect_failure(eplb-moves-alone 2 "--max-moves: expected --previous" ${out}
                      eplb-solve --loads ${readme} --nodes 2 --gpus 8 --slots 16 --max-moves 3 --out ${out})
expect_failure(eplb-sglang-dense 2 "--sglang-out: expected --model or --dense-layers" ${out}
                      eplb-solve --loads ${readme} --nodes 2 --gpus 8 --slots 16 --sglang-out ${eplb_dir}/s.json --out ${out})

# A dense model has no experts to place or route: both commands refuse it, naming the model file.
expect_failure(eplb-solve-dense 2 "llama-3.1-8b-instruct.yaml: moe: expected a moe block" ${eplb_dir}/dense.json
               eplb-solve --loads ${synthetic} --model ${SOURCE_DIR}/models/llama-3.1-8b-instruct.yaml
               --nodes 1 --gpus 8 --slots 256 --out ${eplb_dir}/dense.json)
expect_failure(eplb-simulate-dense 2 "llama-3.1-8b-instruct.yaml: moe: expected a moe block" ${eplb_dir}/dense.json
               eplb-simulate --model ${SOURCE_DIR}/models/llama-3.1-8b-instruct.yaml --ep-sizes 8 --batches 1
               --layers 1 --json ${eplb_dir}/dense.json)
