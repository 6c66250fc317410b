#include "core/einsum.h"

#include <algorithm>
#include <cctype>

namespace placer {

namespace {

// A term's letters and whether (and after how many letters) it has "...". False when malformed.
struct Term {
  std::string letters;
  std::optional<std::size_t> dots;  // position of "..." among the letters
};

std::optional<Term> readTerm(const std::string& text) {
  Term term;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, "...") == 0) {
      if (term.dots) return std::nullopt;
      term.dots = term.letters.size();
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      term.letters += text[i];
    } else {
      return std::nullopt;
    }
  }
  return term;
}

// Two sizes of one index: equal, or one of them 1.
bool merge(std::int64_t& size, std::int64_t other) {
  if (size == other || other == 1) return true;
  if (size != 1) return false;
  size = other;
  return true;
}

}  // namespace

double EinsumIndices::points() const {
  double n = 1;
  for (std::int64_t d : ellipsis)
    n *= static_cast<double>(d);
  for (const auto& [letter, size] : letters)
    n *= static_cast<double>(size);
  return n;
}

std::optional<EinsumIndices> readEinsum(const std::string& equation, const std::vector<Shape>& operands) {
  std::string text;
  for (char c : equation) {
    if (c != ' ') text += c;
  }
  const std::size_t arrow = text.find("->");
  std::vector<Term> terms;
  std::string part;
  for (char c : text.substr(0, arrow) + ",") {
    if (c != ',') {
      part += c;
      continue;
    }
    auto term = readTerm(part);
    if (!term) return std::nullopt;
    terms.push_back(*term);
    part.clear();
  }
  if (terms.size() != operands.size()) return std::nullopt;
  EinsumIndices out;
  out.operands = terms.size();
  std::map<char, int> count;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const Term& term = terms[k];
    const Shape& shape = operands[k];
    if (term.letters.size() > shape.size() || (!term.dots && term.letters.size() != shape.size())) return std::nullopt;
    const std::size_t broadcast = shape.size() - term.letters.size();
    const std::size_t before = term.dots.value_or(term.letters.size());
    for (std::size_t i = 0; i < term.letters.size(); ++i) {
      const std::int64_t dim = shape[i < before ? i : i + broadcast];
      auto [it, inserted] = out.letters.try_emplace(term.letters[i], dim);
      if (!inserted && !merge(it->second, dim)) return std::nullopt;
      ++count[term.letters[i]];
    }
    if (broadcast > out.ellipsis.size()) out.ellipsis.insert(out.ellipsis.begin(), broadcast - out.ellipsis.size(), 1);
    for (std::size_t j = 0; j < broadcast; ++j) {
      if (!merge(out.ellipsis[out.ellipsis.size() - broadcast + j], shape[before + j])) return std::nullopt;
    }
  }
  if (arrow == std::string::npos) {
    out.output = out.ellipsis;
    for (const auto& [letter, n] : count) {  // alphabetical: std::map's order
      if (n == 1) out.output.push_back(out.letters[letter]);
    }
    return out;
  }
  auto result = readTerm(text.substr(arrow + 2));
  if (!result) return std::nullopt;
  for (std::size_t i = 0; i < result->letters.size(); ++i) {
    if (result->dots && *result->dots == i) out.output.insert(out.output.end(), out.ellipsis.begin(), out.ellipsis.end());
    auto it = out.letters.find(result->letters[i]);
    if (it == out.letters.end()) return std::nullopt;
    out.output.push_back(it->second);
  }
  if (result->dots && *result->dots == result->letters.size())
    out.output.insert(out.output.end(), out.ellipsis.begin(), out.ellipsis.end());
  return out;
}

}  // namespace placer
