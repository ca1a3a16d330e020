# predict-runs and fit-engine driven as a user would; included by run_cli_tests.cmake. The runs are
# written by hand (tests/data/runs/), not measured: these tests check the plumbing, not the accuracy.
set(predict_dir ${WORK_DIR}/predict)
file(REMOVE_RECURSE ${predict_dir})
file(MAKE_DIRECTORY ${predict_dir})
set(runs ${SOURCE_DIR}/tests/data/runs/hand_written_runs.csv)

expect_success(predict-runs "/engines/sglang.json, fit-engine over" predict-runs --runs ${runs} --out ${predict_dir}/predictions.csv
               --models ${models} --engines ${SOURCE_DIR}/engines)
file(READ ${predict_dir}/predictions.csv predictions)
foreach(reason "no model YAML with hf_id someone/Unknown-Model" "no GPU preset for system tpu_v5")
  string(FIND "${predictions}" "${reason}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "predict-runs: predictions.csv lacks the reason '${reason}'\n${predictions}")
  endif()
endforeach()
expect_failure(predict-runs-out-is-input 2 "--out: expected a file other than --runs" ${predict_dir}/none.csv
               predict-runs --runs ${runs} --out ${runs} --models ${models})
expect_failure(predict-runs-no-engines-folder 2 "--engines: expected a folder of engine profiles"
               ${predict_dir}/no-engines.csv predict-runs --runs ${runs} --out ${predict_dir}/no-engines.csv
               --models ${models} --engines ${predict_dir}/absent)
expect_failure(fit-engine-too-few 2 "at least 8 predictable sglang runs" ${predict_dir}/profile.json
               fit-engine --runs ${runs} --engine sglang --out ${predict_dir}/profile.json --models ${models})
set(h200_calibration ${SOURCE_DIR}/validation/data/calibration_4xh200.json)
expect_failure(predict-runs-profile-on-other-ceilings 2
               "sglang.json: ceilings: expected a profile fitted on the ceilings the runs are priced on"
               ${predict_dir}/other-ceilings.csv predict-runs --runs ${runs} --out ${predict_dir}/other-ceilings.csv
               --models ${models} --engines ${SOURCE_DIR}/engines --calibration ${h200_calibration})
expect_failure(predict-runs-unknown-ceiling-term 2 "command line: --calibration-terms: expected"
               ${predict_dir}/bad-terms.csv predict-runs --runs ${runs} --out ${predict_dir}/bad-terms.csv
               --models ${models} --engines ${SOURCE_DIR}/engines --calibration ${h200_calibration}
               --calibration-terms memory,hbm)
