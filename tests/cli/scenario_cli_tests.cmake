# A scenario from the command line: the flags make the scenario, --save-scenario writes it, and the
# saved file plans the same as the flags did. Included by run_cli_tests.cmake (its functions, variables).
set(saved ${WORK_DIR}/one-line.yaml)
set(one_line --model ${models}/deepseek-v3.yaml --gpu H200 --gpus 8 --input-tokens 318 --output-tokens 201
             --request-rate 4 --ttft-ms 2000 --tpot-ms 100 --engine sglang@0.5.4 --top 3)
execute_process(COMMAND ${MOEPLAN} plan-deploy ${one_line} --save-scenario ${saved} RESULT_VARIABLE code
                OUTPUT_VARIABLE from_flags ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT EXISTS ${saved})
  message(FATAL_ERROR "scenario-flags: expected exit 0 and ${saved}, got ${code}\n${err}")
endif()
file(READ ${saved} saved_text)
string(FIND "${saved_text}" "version: 0.5.4" found)
if(found EQUAL -1)
  message(FATAL_ERROR "scenario-flags: the saved scenario lacks the engine release\n${saved_text}")
endif()
execute_process(COMMAND ${MOEPLAN} plan-deploy --model ${models}/deepseek-v3.yaml --scenario ${saved} --top 3
                RESULT_VARIABLE code OUTPUT_VARIABLE from_file ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT from_flags STREQUAL from_file)
  message(FATAL_ERROR "scenario-flags: the saved scenario plans differently (exit ${code})\n${from_flags}\n${from_file}\n${err}")
endif()

# Flags override a file's values: the file's 4 requests/s becomes 2.
expect_success(scenario-flag-over-file "the offered 2 requests/s spread over the replicas" plan-deploy
               --model ${models}/deepseek-v3.yaml --scenario ${scenarios}/deepseek-v3-8xh200.yaml --request-rate 2
               --top 1)

# A flag the scenario cannot take names itself, exits 2 and writes neither output.
expect_failure(scenario-flag-gpus 2 "command line: --gpus: expected whole nodes of 8 GPUs" ${saved}
               plan-deploy --model ${models}/deepseek-v3.yaml --gpus 12 --save-scenario ${saved})
expect_failure(scenario-flag-engine 2 "command line: --engine: expected sglang, vllm, vllm-ascend or trtllm" ${saved}
               simulate --model ${models}/deepseek-v3.yaml --layout tp=8 --engine tgi --save-scenario ${saved})
expect_failure(scenario-flag-input-tokens 2 "--input-tokens: expected an integer in [1, 16777216], got 0" ${saved}
               memory --model ${models}/deepseek-v3.yaml --layout tp=8 --input-tokens 0 --save-scenario ${saved})

# --model takes a Hugging Face id: a shipped model's is found with no network, and an id that is
# neither shipped nor cached is refused offline, naming the id.
set(ENV{HF_HUB_OFFLINE} 1)
set(ENV{HF_HOME} ${WORK_DIR}/hf-home)
expect_success(model-by-hub-id "DeepSeek-V3 on 1 x 8 H200" plan-deploy --model deepseek-ai/DeepSeek-V3 --gpus 8 --top 1)
expect_success(model-by-suffixed-id "KV capacity" memory --model Qwen/Qwen3-32B-FP8 --layout tp=1 --gpu H100-SXM)
expect_failure(model-id-offline 2 "no-such-org/no-such-model: config.json: expected a cached copy" ${saved}
               memory --model no-such-org/no-such-model --layout tp=1 --save-scenario ${saved})
unset(ENV{HF_HUB_OFFLINE})
unset(ENV{HF_HOME})

# Run from a folder without engines/ (as after install), a scenario naming an engine is still priced with
# the shipped profile, not the engine's unfitted defaults.
file(MAKE_DIRECTORY ${WORK_DIR}/elsewhere)
execute_process(COMMAND ${MOEPLAN} plan-deploy --model ${models}/deepseek-v3.yaml --gpus 8 --engine sglang --top 1
                WORKING_DIRECTORY ${WORK_DIR}/elsewhere RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${out}" "engines/sglang.json: fit-engine over" found)
if(NOT code EQUAL 0 OR found EQUAL -1)
  message(FATAL_ERROR "profile-from-elsewhere: expected the shipped sglang profile, got ${code}\n${out}\n${err}")
endif()
