#include "markdown_table.h"

#include <algorithm>

namespace outboxd::docs {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Splits "| a | `b|c` | d |" into {"a", "`b|c`", "d"}.
std::vector<std::string> SplitRow(std::string_view line) {
  line = Trim(line);
  if (line.starts_with('|')) line.remove_prefix(1);
  if (line.ends_with('|') && !line.ends_with("\\|")) line.remove_suffix(1);
  std::vector<std::string> cells;
  std::string cell;
  bool in_code = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell.push_back('|');
      ++i;
      continue;
    }
    if (c == '`') in_code = !in_code;
    if (c == '|' && !in_code) {
      cells.emplace_back(Trim(cell));
      cell.clear();
      continue;
    }
    cell.push_back(c);
  }
  cells.emplace_back(Trim(cell));
  return cells;
}

bool IsSeparator(const std::vector<std::string>& cells) {
  return std::all_of(cells.begin(), cells.end(), [](const std::string& cell) {
    return !cell.empty() && cell.find_first_not_of("-: ") == std::string::npos;
  });
}

}  // namespace

std::vector<Section> ParseSections(std::string_view markdown) {
  std::vector<Section> sections;
  std::vector<TableRow> table;  // The table being read, header included.
  auto flush = [&] {
    if (table.size() >= 2 && IsSeparator(table[1].cells) && !sections.empty()) {
      sections.back().rows.insert(sections.back().rows.end(), table.begin() + 2, table.end());
    }
    table.clear();
  };
  bool in_fence = false;
  int number = 0;
  size_t start = 0;
  while (start <= markdown.size()) {
    size_t end = markdown.find('\n', start);
    if (end == std::string_view::npos) end = markdown.size();
    const std::string_view line = markdown.substr(start, end - start);
    start = end + 1;
    ++number;
    const std::string_view trimmed = Trim(line);
    if (trimmed.starts_with("```")) {
      flush();
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) continue;
    if (trimmed.starts_with('|')) {
      table.push_back({number, SplitRow(trimmed)});
      continue;
    }
    flush();
    if (line.starts_with("## ")) sections.push_back({std::string(Trim(line.substr(3))), {}});
  }
  flush();
  return sections;
}

std::string CodeSpan(std::string_view cell) {
  if (cell.size() < 2 || cell.front() != '`' || cell.back() != '`') return "";
  const std::string_view inner = cell.substr(1, cell.size() - 2);
  if (inner.find('`') != std::string_view::npos) return "";
  return std::string(inner);
}

}  // namespace outboxd::docs
