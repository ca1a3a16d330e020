#pragma once
// What plan-deploy --calibration uses: a CollectiveModel whose curves are the measured ones and an
// Efficiency whose fractions are the fitted ones, both ready for StepModel; and the checks that refuse
// a file measured for another model shape or another GPU.
#include <optional>
#include <string>

#include "calib/calibration.hpp"
#include "cost/collectives.hpp"
#include "cost/compute.hpp"
#include "spec/hardware.hpp"

namespace moeplan::calib {

struct CalibratedModels {
  CollectiveModel collectives;
  Efficiency efficiency;
};

// `target` is the scenario's hardware: fitted fractions are rescaled from the file's reference ceilings
// to its figures, so the predicted times stay the measured ones. Graph-captured curves are used (decode
// runs under CUDA graphs); eager ones only where no graph curve was fitted.
CalibratedModels calibrated_models(const Calibration& calibration, const Hardware& target, const std::string& file);

// The preset whose GPU the device name names ("NVIDIA H200" -> H200, "NVIDIA H100 80GB HBM3" -> H100-SXM).
std::optional<Hardware> preset_for_device(const std::string& device_name);

// Throw InputError(file, "model.<field>", ...) or (file, "device.name", ...) on a mismatch.
void check_model_matches(const Calibration& calibration, const Model& model, const std::string& file);
void check_device_matches(const Calibration& calibration, const Hardware& hardware, const std::string& file);

}  // namespace moeplan::calib
