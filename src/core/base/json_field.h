// Reading JSON objects field by field, with errors that name the field by its
// path in the document ("nvtx_include[0].elements[1].kind: ..."), for files
// one part of rangereplay writes and another reads (the configuration).
//
//   ProfileConfig c;
//   RR_RETURN_IF_ERROR(json_field::require_object(j, ""));
//   RR_RETURN_IF_ERROR(json_field::read(j, "verify", "", c.verify));  // absent: c.verify unchanged
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/base/enum_names.h"
#include "core/base/status.h"

namespace rangereplay::json_field {

/// The path of member `name` of the object at `path` ("" is the document).
inline std::string member(std::string_view path, std::string_view name) {
  return path.empty() ? std::string(name) : std::string(path) + "." + std::string(name);
}
/// The path of element `index` of the array at `path`.
inline std::string element(std::string_view path, std::size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}
/// kInvalidArgument "<path>: <problem>" (the document itself when `path` is "").
inline Status field_error(std::string_view path, std::string_view problem) {
  return invalid_argument((path.empty() ? std::string("the document") : std::string(path)) + ": " +
                          std::string(problem));
}

/// ok when `j` is a JSON object. Errors: kInvalidArgument naming `path`.
inline Status require_object(const nlohmann::json& j, std::string_view path) {
  if (j.is_object()) return ok_status();
  return field_error(path, std::string("must be an object, not ") + j.type_name());
}
/// ok when `j` is a JSON array. Errors: kInvalidArgument naming `path`.
inline Status require_array(const nlohmann::json& j, std::string_view path) {
  if (j.is_array()) return ok_status();
  return field_error(path, std::string("must be an array, not ") + j.type_name());
}

/// Converts `j` (the value at `path`) to T. Unsigned integers must be whole
/// numbers from 0 to T's largest value. Errors: kInvalidArgument naming `path`
/// with the JSON library's reason.
template <class T>
Status convert(const nlohmann::json& j, std::string_view path, T& out) {
  if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() > std::numeric_limits<T>::max()) {
      return field_error(path, "must be a whole number from 0 to " + std::to_string(std::numeric_limits<T>::max()));
    }
  }
  try {
    out = j.get<T>();
  } catch (const nlohmann::json::exception& e) {
    return field_error(path, e.what());
  }
  return ok_status();
}

/// Reads member `name` of `object` (at `path`) into `out`; absent or null
/// leaves `out` unchanged. Errors: as convert().
template <class T>
Status read(const nlohmann::json& object, std::string_view name, std::string_view path, T& out) {
  const auto it = object.find(std::string(name));
  if (it == object.end() || it->is_null()) return ok_status();
  return convert(*it, member(path, name), out);
}

/// Like read(), but an absent or null member is an error.
template <class T>
Status read_required(const nlohmann::json& object, std::string_view name, std::string_view path, T& out) {
  const auto it = object.find(std::string(name));
  if (it == object.end() || it->is_null()) return field_error(member(path, name), "missing");
  return convert(*it, member(path, name), out);
}

/// Reads member `name` of `object` (at `path`), a name of `table`, into
/// `out`; absent or null leaves `out` unchanged. Errors: kInvalidArgument
/// naming the field and the known names ("restore: unknown value 'some';
/// one of differential, full").
template <class Enum, std::size_t N>
Status read_enum(const nlohmann::json& object, std::string_view name, std::string_view path,
                 const EnumNames<Enum, N>& table, Enum& out) {
  const auto it = object.find(std::string(name));
  if (it == object.end() || it->is_null()) return ok_status();
  std::string text;
  RR_RETURN_IF_ERROR(convert(*it, member(path, name), text));
  const std::optional<Enum> value = value_named(table, text);
  if (!value) {
    return field_error(member(path, name), "unknown value '" + text + "'; one of " + names_joined(table, ", ", ", "));
  }
  out = *value;
  return ok_status();
}

}  // namespace rangereplay::json_field
