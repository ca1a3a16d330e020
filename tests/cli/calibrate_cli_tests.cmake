# calibrate --from driven as a user would; included by run_cli_tests.cmake. Re-fitting a calibration
# measured before needs no GPU, so these run in every build.
set(calibrate_dir ${WORK_DIR}/calibrate)
file(REMOVE_RECURSE ${calibrate_dir})
file(MAKE_DIRECTORY ${calibrate_dir})
set(two_h200 ${SOURCE_DIR}/validation/data/calibration_2xh200.json)
set(report ${calibrate_dir}/report.html)

# expect_success and expect_failure come from run_cli_tests.cmake, which includes this file.
expect_success(calibrate-from "held-out error" calibrate --from ${two_h200} --report ${report})
# An interrupted run's file (mpirun -np 2 on 2xH200, SIGINT to the second process during the OTP stage) says so.
expect_success(calibrate-from-interrupted "interrupted calibration (\"complete\": false)" calibrate
               --from ${SOURCE_DIR}/tests/data/calib/calibration-interrupted-2xh200.json)
file(READ ${report} report_html)
foreach(expected "<svg" "2x NVIDIA H200" "all_reduce, eager")
  string(FIND "${report_html}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "calibrate-from: the report lacks '${expected}'")
  endif()
endforeach()

# --out writes the re-fitted file: the same 168 collective + 266 GEMM + 156 MoE + 54 OTP measurements.
set(refitted ${calibrate_dir}/refitted.json)
expect_success(calibrate-refit "wrote ${refitted}" calibrate --from ${two_h200} --out ${refitted})
file(READ ${refitted} refitted_json)
string(JSON measurement_count LENGTH "${refitted_json}" measurements)
if(NOT measurement_count EQUAL 644)
  message(FATAL_ERROR "calibrate-refit: ${measurement_count} measurements, expected 644")
endif()

# A bad --from file exits 2 naming the file and key, and writes no report.
expect_failure(calibrate-from-missing 2 "no-such-calibration.json: expected an existing, readable file" ${report}
               calibrate --from ${bad}/no-such-calibration.json --report ${report})
expect_failure(calibrate-from-truncated 2 "calibration-truncated.json: expected well-formed JSON" ${report}
               calibrate --from ${bad}/calibration-truncated.json --report ${report})
expect_failure(calibrate-from-missing-key 2 "calibration-missing-seconds.json: measurements[0].seconds: expected" ${report}
               calibrate --from ${bad}/calibration-missing-seconds.json --report ${report})
# A measurement missing what its family's fit reads is refused by name, not priced as zero.
expect_failure(calibrate-from-moe-without-stage 2
               "calibration-moe-without-stage.json: measurements[0].stages.gate_up: expected" ${report}
               calibrate --from ${bad}/calibration-moe-without-stage.json --report ${report})
expect_failure(calibrate-from-moe-without-slots 2
               "calibration-moe-without-slots.json: measurements[0].shape.local_experts: expected" ${report}
               calibrate --from ${bad}/calibration-moe-without-slots.json --report ${report})
# Absurd shapes are refused before the routing expectations (a sum over ~sqrt(tokens) rows) could run long.
expect_failure(calibrate-from-absurd-tokens 2
               "calibration-moe-absurd-tokens.json: measurements[0].shape.tokens: expected an integer in [1, 16777216]"
               ${report} calibrate --from ${bad}/calibration-moe-absurd-tokens.json --report ${report})
expect_failure(calibrate-from-absurd-seconds 2
               "calibration-moe-absurd-seconds.json: measurements[0].stages.align: expected a measured time in seconds, at most 1000"
               ${report} calibrate --from ${bad}/calibration-moe-absurd-seconds.json --report ${report})
expect_failure(calibrate-from-ranks-over-devices 2
               "calibration-ranks-over-devices.json: measurements[0].ranks: expected an integer in [1, 2]"
               ${report} calibrate --from ${bad}/calibration-ranks-over-devices.json --report ${report})
expect_failure(calibrate-from-device-count-wraps 2
               "calibration-device-count-wraps.json: device.count: expected an integer in [1, 65536]" ${report}
               calibrate --from ${bad}/calibration-device-count-wraps.json --report ${report})
expect_failure(calibrate-from-topk-over-experts 2
               "calibration-moe-topk-over-experts.json: measurements[0].shape.top_k: expected at most local_experts"
               ${report} calibrate --from ${bad}/calibration-moe-topk-over-experts.json --report ${report})
expect_failure(calibrate-from-fewer-columns 2
               "calibration-moe-fewer-columns.json: measurements[0].shape.columns: expected at least top_k" ${report}
               calibrate --from ${bad}/calibration-moe-fewer-columns.json --report ${report})

# --from re-fits what was measured: the options that shape a live sweep make no sense beside it.
expect_failure(calibrate-from-with-model 2 "--model excludes --from" ${report}
               calibrate --from ${two_h200} --model ${models}/deepseek-v3.yaml --report ${report})
expect_failure(calibrate-from-with-quick 2 "--quick excludes --from" ${report}
               calibrate --from ${two_h200} --quick --report ${report})
expect_failure(calibrate-live-without-out 2 "--out: expected the calibration JSON to write" ${report}
               calibrate --model ${models}/deepseek-v3.yaml --report ${report})

# A measuring run is checked before any GPU executable is looked for: a bad model exits 2 in every build,
# and --out may not name the model (a copy here: a failed check must leave it as it was).
set(model_copy ${calibrate_dir}/deepseek-v3.yaml)
file(COPY_FILE ${models}/deepseek-v3.yaml ${model_copy})
expect_failure(calibrate-live-out-is-model 2 "--out: expected a file other than --model (${model_copy})" ${report}
               calibrate --model ${model_copy} --out ${model_copy} --report ${report})
file(SIZE ${model_copy} copy_size)
file(SIZE ${models}/deepseek-v3.yaml model_size)
if(NOT copy_size EQUAL model_size)
  message(FATAL_ERROR "calibrate-live-out-is-model: the model file was changed")
endif()
set(live ${calibrate_dir}/live.json)
expect_failure(calibrate-live-report-is-out 2 "--report: expected a file other than --out" ${live}
               calibrate --model ${models}/deepseek-v3.yaml --out ${calibrate_dir}/./live.json --report ${live})
expect_failure(calibrate-live-missing-model 2 "no-such-model.yaml: expected an existing, readable file" ${live}
               calibrate --model ${bad}/no-such-model.yaml --out ${live})

# calibrate measures CUDA GPUs only: an AMD or Ascend preset is refused by name before anything runs.
expect_failure(calibrate-amd-gpu 2 "--gpu: expected a CUDA GPU: calibrate is CUDA-only" ${report}
               calibrate --gpu MI300X --model ${models}/deepseek-v3.yaml --out ${calibrate_dir}/amd.json
               --report ${report})
