#pragma once
// Just enough Markdown for the documentation checks: the pipe tables under each `## ` heading.

#include <string>
#include <string_view>
#include <vector>

namespace outboxd::docs {

struct TableRow {
  int line = 0;                    // 1-based, for failure messages.
  std::vector<std::string> cells;  // Trimmed; a `|` inside backticks or escaped as \| stays.
};

struct Section {
  std::string heading;         // The text after "## ", trimmed.
  std::vector<TableRow> rows;  // Body rows of every table in the section, headers dropped.
};

// The level-2 sections of `markdown` in order (text before the first is dropped). Fenced code
// blocks are skipped.
std::vector<Section> ParseSections(std::string_view markdown);

// "x" for a cell that is exactly "`x`", else "".
std::string CodeSpan(std::string_view cell);

}  // namespace outboxd::docs
