#pragma once
// Colours shared by every chart: a categorical set that colour-blind readers can tell apart
// (Okabe and Ito's eight), the greys of the chart furniture, and the highlight colour.
#include <array>
#include <cstddef>
#include <string>

namespace moeplan::report {

inline constexpr std::array<const char*, 8> kCategoryColours = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                                "#56B4E9", "#D55E00", "#F0E442", "#000000"};
inline constexpr const char* kAxisColour = "#444";
inline constexpr const char* kGridColour = "#e3e3e3";
inline constexpr const char* kMutedColour = "#9a9a9a";
inline constexpr const char* kHighlightColour = "#D55E00";
inline constexpr const char* kLimitColour = "#B2182B";

inline std::string category_colour(std::size_t index) { return kCategoryColours[index % kCategoryColours.size()]; }

}  // namespace moeplan::report
