#include "calib/calibration.hpp"

namespace moeplan::calib {

ModelSignature model_signature(const Model& model) {
  ModelSignature signature;
  signature.name = model.name;
  signature.hidden_size = model.hidden_size;
  signature.o_input_width = model.attention.o_input_width();
  signature.query_width = model.attention.query_width();
  signature.num_experts = model.moe.num_experts;
  signature.experts_per_token = model.moe.experts_per_token;
  signature.moe_intermediate_size = model.moe.intermediate_size;
  signature.shared_experts = model.moe.shared_experts;
  signature.expert_dtype = dtype_name(model.weights.experts);
  return signature;
}

}  // namespace moeplan::calib
