#pragma once
// Fits every family on its training shapes (heldout.hpp) and fills the coefficients and the held-out
// error of each family: collectives, dense GEMMs, the MoE layer, and the OTP paths (their stages priced
// from the collective and GEMM fits, then one end-to-end adjustment per scheme fitted on the held-in shapes).
#include "calib/calibration.hpp"
#include "spec/hardware.hpp"

namespace moeplan::calib {

// The datasheet preset of the measured GPU, or, for a GPU with no preset, one built from the measured
// copy and GEMM ceilings; the efficiencies are fractions of its HBM and BF16 figures.
Hardware reference_hardware(const Calibration& calibration);

void fit_calibration(Calibration& calibration);

}  // namespace moeplan::calib
