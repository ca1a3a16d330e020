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

// Which of a calibration's measurements enter a prediction composed with an engine profile
// (measured_ceilings). Every term is a measurement of the hardware or of a library the engines share
// (NCCL, cuBLAS), except expert_paths, which times moeplan's own fused-MoE kernels.
struct CeilingTerms {
  bool memory = true;         // HBM: the measured device-to-device copy rate
  bool compute = true;        // tensor throughput: the measured BF16 GEMM rate, FP8 and FP4 at the same share
  bool collectives = true;    // the measured collective curves, carried to larger groups
  bool floors = true;         // the dense GEMM floor and the router's and align's fixed costs
  bool expert_paths = false;  // the fitted MoE path costs of moeplan's kernels
};

// "memory,compute,..." (the CeilingTerms names, or "none") as flags; throws InputError(source, key, ...)
// on an unknown name.
CeilingTerms parse_ceiling_terms(const std::string& list, const std::string& source, const std::string& key);
std::string ceiling_terms_name(const CeilingTerms& terms);

// The roofline `base` (every efficiency 1 for a profile's step costs) with the ceilings the calibration
// measured in place of `target`'s datasheet ones, term by term. A collective group larger than the
// calibration measured gets the datasheet curve scaled as the largest measured group's curve is to its
// own datasheet curve (floor, line latency and bus bandwidth each by its ratio), inside the NVLink
// domain; groups spanning domains keep the datasheet's network curves.
CalibratedModels measured_ceilings(const Calibration& calibration, const Hardware& target, const std::string& file,
                                   const Efficiency& base, const CeilingTerms& terms);

// The preset whose GPU the device name names ("NVIDIA H200" -> H200, "NVIDIA H100 80GB HBM3" -> H100-SXM).
std::optional<Hardware> preset_for_device(const std::string& device_name);

// Throw InputError(file, "model.<field>", ...) or (file, "device.name", ...) on a mismatch.
void check_model_matches(const Calibration& calibration, const Model& model, const std::string& file);
void check_device_matches(const Calibration& calibration, const Hardware& hardware, const std::string& file);

}  // namespace moeplan::calib
