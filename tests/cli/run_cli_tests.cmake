# Drives the moeplan binary as a user would. Variables: MOEPLAN, SOURCE_DIR, WORK_DIR.
# Every bad input must exit 2 with a message naming the file and key, and leave no output file.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(models ${SOURCE_DIR}/models)
set(scenarios ${SOURCE_DIR}/scenarios)
set(bad ${SOURCE_DIR}/tests/data/bad)

function(expect_success name expected_text)
  execute_process(COMMAND ${MOEPLAN} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "${name}: expected exit 0, got ${code}\n${out}\n${err}")
  endif()
  string(FIND "${out}" "${expected_text}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${name}: output lacks '${expected_text}'\n${out}")
  endif()
endfunction()

# expect_failure(name exit_code expected_text output_file args...)
function(expect_failure name expected_code expected_text output_file)
  file(REMOVE ${output_file})
  execute_process(COMMAND ${MOEPLAN} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL expected_code)
    message(FATAL_ERROR "${name}: expected exit ${expected_code}, got ${code}\n${out}\n${err}")
  endif()
  string(FIND "${err}" "${expected_text}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${name}: stderr lacks '${expected_text}'\n${err}")
  endif()
  if(EXISTS ${output_file})
    message(FATAL_ERROR "${name}: ${output_file} was written despite the error")
  endif()
endfunction()

expect_success(version "GPU calibration" --version)
foreach(command plan-deploy memory eplb-solve eplb-simulate calibrate export predict-runs fit-engine)
  expect_success(help-${command} "Example:" ${command} --help)
endforeach()

# A good run writes the contract's keys; the O projection at OTP 4 is 8192 x 4096 x 2 x 94 / 4 bytes.
set(json ${WORK_DIR}/memory.json)
expect_success(memory-qwen "KV capacity" memory --model ${models}/qwen3-235b-a22b.yaml
               --layout dp=16,tp=1,otp=4,ep=16 --scenario ${scenarios}/qwen3-235b-rl-910b.yaml --json ${json})
file(READ ${json} memory_json)
string(JSON o_bytes GET "${memory_json}" per_rank_bytes weights attention_o)
if(NOT o_bytes EQUAL 1577058304)
  message(FATAL_ERROR "memory-qwen: attention_o = ${o_bytes}, expected 1577058304")
endif()
string(JSON kv_bytes GET "${memory_json}" kv_bytes_per_token)
if(NOT kv_bytes EQUAL 192512)
  message(FATAL_ERROR "memory-qwen: kv_bytes_per_token = ${kv_bytes}, expected 192512")
endif()
# --kv-cache-dtype overrides the scenario's: FP8 halves the 94 x 2 x 4 x 128 x 2 bytes above.
expect_success(memory-qwen-fp8-kv "KV capacity" memory --model ${models}/qwen3-235b-a22b.yaml
               --layout dp=16,tp=1,otp=4,ep=16 --scenario ${scenarios}/qwen3-235b-rl-910b.yaml --kv-cache-dtype fp8
               --json ${json})
file(READ ${json} memory_json)
string(JSON kv_bytes GET "${memory_json}" kv_bytes_per_token)
if(NOT kv_bytes EQUAL 96256)
  message(FATAL_ERROR "memory-qwen-fp8-kv: kv_bytes_per_token = ${kv_bytes}, expected 96256")
endif()
expect_failure(memory-kv-nvfp4 2 "--kv-cache-dtype: expected one of bf16, fp16, fp32, fp8_e4m3" ${json}
               memory --model ${models}/qwen3-235b-a22b.yaml --layout tp=8 --kv-cache-dtype nvfp4 --json ${json})

set(plan ${WORK_DIR}/plan.json)
# A scenario's tuned efficiencies are what the estimates rest on, and the output says so.
expect_success(plan-deploy-tuned
               "at the scenario's efficiencies (GEMMs fitted to the 910B O-projection timings of [doc-004]" plan-deploy
               --model ${models}/qwen3-235b-a22b.yaml --scenario ${scenarios}/qwen3-235b-rl-910b.yaml --top 1)
# The scenario offers 4 requests/s: every plan is priced at that load spread over its replicas.
expect_success(plan-deploy "the offered 4 requests/s spread over the replicas" plan-deploy
               --model ${models}/deepseek-v3.yaml --scenario ${scenarios}/deepseek-v3-8xh200.yaml --json ${plan})
file(READ ${plan} plan_json)
string(JSON plan_count LENGTH "${plan_json}" plans)
if(plan_count EQUAL 0)
  message(FATAL_ERROR "plan-deploy: the plan JSON holds no plan")
endif()
string(JSON first_in_flight GET "${plan_json}" plans 0 at_offered_load in_flight_per_replica)
string(JSON first_capacity GET "${plan_json}" plans 0 requests_per_second_within_slo)
string(JSON first_carries GET "${plan_json}" plans 0 carries_offered_load)
# At 4 requests/s a request living a few seconds keeps a handful to a few dozen in flight, and the first plan
# carries the load: it serves more than the offered 4 requests/s within its SLOs.
if(first_in_flight LESS 1 OR first_in_flight GREATER 200 OR first_capacity LESS 4 OR NOT first_carries)
  message(FATAL_ERROR "plan-deploy: plans[0] in flight ${first_in_flight}, capacity ${first_capacity}, "
                      "carries ${first_carries}")
endif()

# Cost at the offered load, by hand: 8 H200 at the preset's $3.50 cost $28 an hour; 4 requests/s of 201 output
# tokens are 804 tokens/s: 28 / 3600 / 804 x 1e6 = $9.6738 per million output tokens.
string(JSON first_cost GET "${plan_json}" plans 0 cost_at_offered_load per_million_output_usd)
if(first_cost LESS 9.67 OR first_cost GREATER 9.68)
  message(FATAL_ERROR "plan-deploy: plans[0].cost_at_offered_load.per_million_output_usd ${first_cost}, expected 9.6738")
endif()
# Sizing for the offered 4 requests/s: one node already carries it (capacity above 4 just above), so the
# fewest GPUs are 8, at the same $9.6738 per million output tokens.
set(sized ${WORK_DIR}/sized.json)
expect_success(plan-deploy-sizing "answer: 8 GPUs" plan-deploy --model ${models}/deepseek-v3.yaml
               --scenario ${scenarios}/deepseek-v3-8xh200.yaml --target-rate 4 --gpus-range 8..16 --json ${sized})
file(READ ${sized} sized_json)
string(JSON sized_gpus GET "${sized_json}" sizing gpus)
string(JSON sized_cost GET "${sized_json}" sizing cost per_million_output_usd)
if(NOT sized_gpus EQUAL 8 OR sized_cost LESS 9.67 OR sized_cost GREATER 9.68)
  message(FATAL_ERROR "plan-deploy-sizing: sizing.gpus ${sized_gpus}, cost ${sized_cost}; expected 8 and 9.6738")
endif()
# The 1024-GPU scenario keeps 65536 requests in flight: spread over each layout's replicas, every plan the
# first table and the JSON rank carries it (issue 42: none unbounded at the scenario's load).
set(large_plan ${WORK_DIR}/plan-1024.json)
expect_success(plan-deploy-1024 "the offered 65536 requests in flight spread over the replicas" plan-deploy
               --model ${models}/deepseek-v3.yaml --scenario ${scenarios}/deepseek-v3-1024xh200.yaml --json ${large_plan})
file(READ ${large_plan} large_json)
string(JSON large_count LENGTH "${large_json}" plans)
math(EXPR last_plan "${large_count} - 1")
foreach(index RANGE ${last_plan})
  string(JSON carries GET "${large_json}" plans ${index} carries_offered_load)
  if(NOT carries)
    message(FATAL_ERROR "plan-deploy-1024: plans[${index}] does not carry the offered load")
  endif()
endforeach()

# A plan goes straight into export: the plan file is what the engine writers read.
expect_success(plan-export "sglang" export --plan ${plan} --engine sglang --model-path deepseek-ai/DeepSeek-V3
               --out ${WORK_DIR}/deploy)
if(NOT EXISTS ${WORK_DIR}/deploy/deployment.json)
  message(FATAL_ERROR "plan-export: no deployment.json")
endif()

set(out ${WORK_DIR}/bad.json)
expect_failure(malformed 2 "malformed.yaml: expected well-formed YAML" ${out}
               memory --model ${bad}/malformed.yaml --layout tp=8 --json ${out})
expect_failure(missing-key 2 "missing-hidden-size.yaml: hidden_size" ${out}
               memory --model ${bad}/missing-hidden-size.yaml --layout tp=8 --json ${out})
expect_failure(negative 2 "num_layers: expected" ${out}
               memory --model ${bad}/negative-layers.yaml --layout tp=8 --json ${out})
expect_failure(nan 2 "moe.routed_scaling_factor" ${out}
               memory --model ${bad}/nan-scaling.yaml --layout tp=8 --json ${out})
expect_failure(simulate-nan-duration 2 "--duration: expected a finite number" ${out}
               simulate --model ${models}/qwen3-235b-a22b.yaml --scenario ${scenarios}/qwen3-235b-rl-910b.yaml
               --layout dp=16,ep=16 --duration nan --json ${out})
expect_failure(unknown-model-key 2 "unknown-key.yaml: num_experts: expected a known key" ${out}
               memory --model ${bad}/unknown-key.yaml --layout tp=8 --json ${out})
expect_failure(unknown-gpu 2 "cluster.gpu: expected a known GPU" ${out}
               memory --model ${models}/deepseek-v3.yaml --layout tp=8 --scenario ${bad}/scenario-unknown-gpu.yaml --json ${out})
expect_failure(zero-nodes 2 "cluster.nodes" ${out}
               plan-deploy --model ${models}/deepseek-v3.yaml --scenario ${bad}/scenario-zero-nodes.yaml --json ${out})
expect_failure(unknown-scenario-key 2 "search.pipeline: expected a known key" ${out}
               plan-deploy --model ${models}/deepseek-v3.yaml --scenario ${bad}/scenario-unknown-key.yaml --json ${out})
expect_failure(ep-not-dividing 2 "layout.ep: expected a divisor of the physical experts" ${out}
               memory --model ${models}/deepseek-v3.yaml --layout dp=12,ep=12 --json ${out})
expect_failure(tp-above-kv-heads 2 "layout.tp" ${out}
               memory --model ${models}/mixtral-8x7b.yaml --layout tp=12 --json ${out})
expect_failure(otp-not-dividing-dp 2 "layout.otp: expected a value dividing dp" ${out}
               memory --model ${models}/qwen3-235b-a22b.yaml --layout dp=16,ep=16,otp=3 --json ${out})
expect_failure(unknown-layout-key 2 "layout.sp: expected a layout key" ${out}
               memory --model ${models}/deepseek-v3.yaml --layout tp=8,sp=2 --json ${out})
expect_failure(budget-below-weights 2 "memory: expected a device budget above the weights" ${out}
               memory --model ${models}/deepseek-v3.yaml --layout tp=1 --gpu H100-SXM --json ${out})
expect_failure(missing-model-file 2 "no-such-model.yaml: expected an existing, readable file" ${out}
               memory --model ${bad}/no-such-model.yaml --layout tp=8 --json ${out})
# No GPU for calibrate, on a GPU machine too (an index past every device hides them all): exit 3.
set(ENV{CUDA_VISIBLE_DEVICES} "-1")
expect_failure(calibrate-unavailable 3 "calibrate" ${out}
               calibrate --model ${models}/deepseek-v3.yaml --out ${out})
unset(ENV{CUDA_VISIBLE_DEVICES})

# Each command's own CLI checks live beside this file and share the functions above.
foreach(extra eplb_cli_tests export_cli_tests calibrate_cli_tests predict_cli_tests scenario_cli_tests)
  if(EXISTS ${SOURCE_DIR}/tests/cli/${extra}.cmake)
    include(${SOURCE_DIR}/tests/cli/${extra}.cmake)
  endif()
endforeach()
