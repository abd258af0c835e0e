// Attribute table queries and the sorted attribute list.
#include "hlo/attributes.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace hlo {
namespace {

struct AttrInfo {
  std::string_view key;
  AttrKind kind;
};

constexpr std::array kAttrs = {
#define HLO_ATTR(Enum, key, kind) AttrInfo{key, AttrKind::kind},
#include "hlo/attributes.def"
#undef HLO_ATTR
};

const std::vector<int64_t> kNoInts;

}  // namespace

std::string_view attrKeyName(AttrKey key) { return kAttrs[static_cast<size_t>(key)].key; }
AttrKind attrKind(AttrKey key) { return kAttrs[static_cast<size_t>(key)].kind; }

std::optional<AttrKey> parseAttrKey(std::string_view text) {
  static const auto* byName = [] {
    auto* m = new std::unordered_map<std::string_view, AttrKey>();
    for (size_t i = 0; i < kAttrs.size(); ++i) (*m)[kAttrs[i].key] = static_cast<AttrKey>(i);
    return m;
  }();
  auto it = byName->find(text);
  if (it == byName->end()) return std::nullopt;
  return it->second;
}

const AttrValue* Attributes::find(AttrKey key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

AttrValue* Attributes::find(AttrKey key) {
  for (auto& [k, v] : items_)
    if (k == key) return &v;
  return nullptr;
}

AttrValue& Attributes::set(AttrKey key, AttrValue value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& item, AttrKey k) { return item.first < k; });
  if (it != items_.end() && it->first == key) {
    it->second = std::move(value);
    return it->second;
  }
  return items_.insert(it, {key, std::move(value)})->second;
}

void Attributes::erase(AttrKey key) {
  std::erase_if(items_, [&](const auto& item) { return item.first == key; });
}

int64_t Attributes::getInt(AttrKey key, int64_t fallback) const {
  const AttrValue* v = find(key);
  return v ? v->i : fallback;
}

bool Attributes::getBool(AttrKey key, bool fallback) const {
  const AttrValue* v = find(key);
  return v ? v->b : fallback;
}

const std::vector<int64_t>& Attributes::getInts(AttrKey key) const {
  const AttrValue* v = find(key);
  return v ? v->ints : kNoInts;
}

std::string_view Attributes::getString(AttrKey key) const {
  const AttrValue* v = find(key);
  return v ? std::string_view(v->s) : std::string_view();
}

Computation* Attributes::getComputation(AttrKey key) const {
  const AttrValue* v = find(key);
  return v && !v->comps.empty() ? v->comps[0] : nullptr;
}

std::vector<Computation*> Attributes::conditionalBranches() const {
  Computation* onTrue = getComputation(AttrKey::kTrueComputation);
  Computation* onFalse = getComputation(AttrKey::kFalseComputation);
  if (onTrue || onFalse) return {onTrue, onFalse};
  const AttrValue* list = find(AttrKey::kBranchComputations);
  return list ? list->comps : std::vector<Computation*>{};
}

void Attributes::setInt(AttrKey key, int64_t v) {
  AttrValue a;
  a.i = v;
  set(key, std::move(a));
}

void Attributes::setInts(AttrKey key, std::vector<int64_t> v) {
  AttrValue a;
  a.ints = std::move(v);
  set(key, std::move(a));
}

void Attributes::setBool(AttrKey key, bool v) {
  AttrValue a;
  a.b = v;
  set(key, std::move(a));
}

void Attributes::setString(AttrKey key, std::string v) {
  AttrValue a;
  a.s = std::move(v);
  set(key, std::move(a));
}

void Attributes::setComputation(AttrKey key, Computation* c) {
  AttrValue a;
  a.comps.push_back(c);
  set(key, std::move(a));
}

std::optional<ComparisonDirection> parseComparisonDirection(std::string_view s) {
  if (s == "EQ") return ComparisonDirection::kEq;
  if (s == "NE") return ComparisonDirection::kNe;
  if (s == "GE") return ComparisonDirection::kGe;
  if (s == "GT") return ComparisonDirection::kGt;
  if (s == "LE") return ComparisonDirection::kLe;
  if (s == "LT") return ComparisonDirection::kLt;
  return std::nullopt;
}

namespace {
enum class Order { kTotal, kPartial, kWeak };

std::optional<Order> orderOfType(std::string_view s) {
  if (s == "FLOAT") return Order::kPartial;
  if (s == "TOTALORDER" || s == "SIGNED" || s == "UNSIGNED") return Order::kTotal;
  return std::nullopt;
}

std::optional<Order> orderOf(std::string_view s) {
  if (s == "TOTAL") return Order::kTotal;
  if (s == "PARTIAL") return Order::kPartial;
  if (s == "WEAK") return Order::kWeak;
  return std::nullopt;
}
}  // namespace

ComparisonType defaultComparisonType(ElementType t) {
  if (isSigned(t)) return ComparisonType::kSigned;
  if (isFloat(t) || isComplex(t)) return ComparisonType::kFloat;
  return ComparisonType::kUnsigned;  // unsigned integers and pred
}

StatusOr<ComparisonType> comparisonTypeOf(const Attributes& attrs, ElementType t) {
  std::optional<Order> order;
  if (attrs.has(AttrKey::kType)) {
    std::string_view text = attrs.getString(AttrKey::kType);
    order = orderOfType(text);
    if (!order)
      return errorStatus("unknown comparison type '" + std::string(text) +
                         "' (FLOAT, TOTALORDER, SIGNED or UNSIGNED)");
    ComparisonType own = defaultComparisonType(t);
    std::string_view fits = own == ComparisonType::kSigned ? "SIGNED" : own == ComparisonType::kFloat ? "FLOAT" : "UNSIGNED";
    if (text != fits && !(text == "TOTALORDER" && isFloat(t)))
      return errorStatus("comparison type " + std::string(text) + " does not fit " +
                         std::string(elementTypeName(t)) + " operands (expected " + std::string(fits) + ")");
  }
  if (attrs.has(AttrKey::kOrder)) {
    std::string_view text = attrs.getString(AttrKey::kOrder);
    std::optional<Order> written = orderOf(text);
    if (!written) return errorStatus("unknown comparison order '" + std::string(text) + "' (TOTAL, PARTIAL or WEAK)");
    if (order && *order != *written)
      return errorStatus("type=" + std::string(attrs.getString(AttrKey::kType)) + " and order=" + std::string(text) +
                         " disagree");
    order = written;
  }
  if (order == Order::kWeak) return errorStatus("order=WEAK comparisons are not supported");
  return order == Order::kTotal && isFloat(t) ? ComparisonType::kTotalOrder : defaultComparisonType(t);
}

}  // namespace hlo
