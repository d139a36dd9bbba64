// Minimal ELF64 reader for cubins (see cubin_symbols.h). Every offset is
// bounds-checked: the image comes from the driver, but a malformed one must
// give an error, never a crash inside the application.
#include "core/record/cubin_symbols.h"

#include <cstring>
#include <string_view>

namespace rangereplay {

namespace {

constexpr std::uint32_t kShtSymtab = 2;
constexpr std::uint8_t kSttObject = 1;
constexpr std::uint8_t kSttFunc = 2;

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> image) : image_(image) {}
  template <typename T>
  bool read(std::uint64_t offset, T* out) const {
    if (offset > image_.size() || image_.size() - offset < sizeof(T)) return false;
    std::memcpy(out, image_.data() + offset, sizeof(T));
    return true;
  }
  bool in_bounds(std::uint64_t offset, std::uint64_t size) const {
    return offset <= image_.size() && image_.size() - offset >= size;
  }
  // NUL-terminated string at table_offset + index, inside the table.
  bool string_at(std::uint64_t table_offset, std::uint64_t table_size, std::uint32_t index,
                 std::string_view* out) const {
    if (index >= table_size || !in_bounds(table_offset, table_size)) return false;
    const char* begin = reinterpret_cast<const char*>(image_.data() + table_offset + index);
    const void* end = std::memchr(begin, 0, table_size - index);
    if (end == nullptr) return false;
    *out = std::string_view(begin, static_cast<const char*>(end) - begin);
    return true;
  }

 private:
  std::span<const std::uint8_t> image_;
};

struct Section {
  std::uint32_t name = 0, type = 0;
  std::uint64_t offset = 0, size = 0, entry_size = 0;
  std::uint32_t link = 0;
};

Status malformed(const char* what) { return invalid_argument(std::string("malformed cubin: ") + what); }

}  // namespace

StatusOr<CubinSymbols> read_cubin_symbols(std::span<const std::uint8_t> image) {
  Reader r(image);
  if (image.size() < 64 || std::memcmp(image.data(),
                                       "\x7f"
                                       "ELF",
                                       4) != 0)
    return malformed("no ELF header");
  if (image[4] != 2 || image[5] != 1) return malformed("not a little-endian ELF64 image");
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!r.read(0x28, &shoff) || !r.read(0x3a, &shentsize) || !r.read(0x3c, &shnum) || !r.read(0x3e, &shstrndx))
    return malformed("truncated header");
  if (shentsize < 64 || shstrndx >= shnum || !r.in_bounds(shoff, std::uint64_t{shnum} * shentsize))
    return malformed("section table out of bounds");

  std::vector<Section> sections(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t at = shoff + std::uint64_t{i} * shentsize;
    Section& s = sections[i];
    if (!r.read(at, &s.name) || !r.read(at + 4, &s.type) || !r.read(at + 24, &s.offset) || !r.read(at + 32, &s.size) ||
        !r.read(at + 40, &s.link) || !r.read(at + 56, &s.entry_size))
      return malformed("truncated section header");
  }
  const Section& names = sections[shstrndx];
  auto section_name = [&](std::uint16_t index, std::string_view* out) {
    return index < sections.size() && r.string_at(names.offset, names.size, sections[index].name, out);
  };

  CubinSymbols result;
  for (const Section& symtab : sections) {
    if (symtab.type != kShtSymtab) continue;
    if (symtab.entry_size < 24 || symtab.link >= sections.size() || !r.in_bounds(symtab.offset, symtab.size))
      return malformed("symbol table out of bounds");
    const Section& strings = sections[symtab.link];
    for (std::uint64_t at = symtab.offset; at + symtab.entry_size <= symtab.offset + symtab.size;
         at += symtab.entry_size) {
      std::uint32_t name_index = 0;
      std::uint8_t info = 0;
      std::uint16_t section_index = 0;
      std::uint64_t size = 0;
      if (!r.read(at, &name_index) || !r.read(at + 4, &info) || !r.read(at + 6, &section_index) ||
          !r.read(at + 16, &size))
        return malformed("truncated symbol");
      const std::uint8_t type = info & 0xf;
      if (type != kSttObject && type != kSttFunc) continue;
      std::string_view name, in_section;
      if (!r.string_at(strings.offset, strings.size, name_index, &name)) return malformed("symbol name out of bounds");
      if (!section_name(section_index, &in_section)) continue;  // undefined or special section
      if (type == kSttFunc && in_section.starts_with(".text.")) {
        result.kernels.emplace_back(name);
      } else if (type == kSttObject && size > 0 && (in_section == ".nv.global" || in_section == ".nv.global.init")) {
        result.writable_globals.push_back({std::string(name), size});
      }
    }
  }
  return result;
}

}  // namespace rangereplay
