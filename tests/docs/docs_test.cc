// The pages users read, checked against the code: a key, environment variable or exit code
// that the code has and the page lacks (or the reverse) fails here, naming the line to fix.

#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "config/config.h"
#include "config/keys.h"
#include "daemon/options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "markdown_table.h"

namespace outboxd::docs {
namespace {

constexpr char kConfigurationPage[] = "docs/configuration.md";
constexpr char kOperatingPage[] = "docs/operating.md";
constexpr char kExitCodesHeader[] = "src/daemon/exit_codes.h";
// The sections whose keys the parsers check; [kafka] passes librdkafka properties through.
constexpr char kKafkaSection[] = "[kafka]";
constexpr char kEnvironmentSection[] = "Environment variables";
constexpr char kExitCodesSection[] = "Exit codes";
// Columns of a key row: key, type, default, meaning.
constexpr size_t kKeyColumns = 4;

// "[postgres]" for "postgres".
std::string Bracketed(std::string_view section) { return "[" + std::string(section) + "]"; }

std::string ReadSource(const std::string& relative) {
  std::ifstream file(std::string(OUTBOXD_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(file.good()) << "cannot read " << relative;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

const Section* FindSection(const std::vector<Section>& sections, std::string_view heading) {
  for (const Section& section : sections) {
    if (section.heading == heading) return &section;
  }
  return nullptr;
}

std::string Where(const TableRow& row) {
  return std::string(kConfigurationPage) + ":" + std::to_string(row.line);
}

class ConfigurationDocTest : public ::testing::Test {
 protected:
  ConfigurationDocTest() : sections_(ParseSections(ReadSource(kConfigurationPage))) {}

  // Key name -> row, for the rows of `[section]`.
  std::map<std::string, TableRow> KeyRows(std::string_view section) const {
    std::map<std::string, TableRow> rows;
    const Section* found = FindSection(sections_, Bracketed(section));
    if (found == nullptr) return rows;
    for (const TableRow& row : found->rows) {
      const std::string key = CodeSpan(row.cells[0]);
      EXPECT_FALSE(key.empty()) << Where(row) << ": the first cell must be a key in backticks";
      EXPECT_TRUE(rows.emplace(key, row).second) << Where(row) << ": " << key << " twice";
    }
    return rows;
  }

  std::vector<Section> sections_;
};

TEST_F(ConfigurationDocTest, EveryAcceptedKeyIsDocumented) {
  for (const config::SectionKeys& section : config::AcceptedKeys()) {
    const std::map<std::string, TableRow> rows = KeyRows(section.section);
    for (std::string_view key : section.keys) {
      EXPECT_TRUE(rows.contains(std::string(key)))
          << kConfigurationPage << ": [" << section.section << "] " << key
          << " is accepted by the parser but not documented; add a row | `" << key
          << "` | type | default | meaning | under ## [" << section.section << "]";
    }
  }
}

TEST_F(ConfigurationDocTest, EveryDocumentedKeyIsAccepted) {
  std::set<std::string> known_sections = {kKafkaSection};
  for (const config::SectionKeys& section : config::AcceptedKeys()) {
    known_sections.insert(Bracketed(section.section));
    const std::set<std::string_view> accepted(section.keys.begin(), section.keys.end());
    for (const auto& [key, row] : KeyRows(section.section)) {
      EXPECT_TRUE(accepted.contains(key)) << Where(row) << ": [" << section.section << "] " << key
                                          << " is not a key the parser accepts";
    }
  }
  for (const Section& section : sections_) {
    if (section.heading.starts_with("[")) {
      EXPECT_TRUE(known_sections.contains(section.heading))
          << kConfigurationPage << ": ## " << section.heading << " is not a config section";
    }
  }
  for (const std::string& section : known_sections) {
    EXPECT_NE(FindSection(sections_, section), nullptr)
        << kConfigurationPage << ": no ## " << section << " section";
  }
}

// The TOML type a default literal has, or "" when it is none of the documented types.
std::string TypeOfLiteral(const std::string& literal) {
  if (literal.starts_with('"')) return "string";
  if (literal == "true" || literal == "false") return "boolean";
  if (literal.starts_with('[')) return "array of strings";
  if (std::regex_match(literal, std::regex("-?[0-9]+"))) return "integer";
  return "";
}

TEST_F(ConfigurationDocTest, RowsGiveTypeDefaultAndMeaning) {
  const std::set<std::string> types = {"string", "integer", "boolean", "array of strings"};
  for (const config::SectionKeys& section : config::AcceptedKeys()) {
    for (const auto& [key, row] : KeyRows(section.section)) {
      ASSERT_EQ(row.cells.size(), kKeyColumns) << Where(row) << ": key | type | default | meaning";
      EXPECT_TRUE(types.contains(row.cells[1]))
          << Where(row) << ": type \"" << row.cells[1]
          << "\" is not string, integer, boolean or array of strings";
      EXPECT_FALSE(row.cells[2].empty()) << Where(row) << ": no default (write — if required)";
      EXPECT_GE(row.cells[3].size(), 10u) << Where(row) << ": say what " << key << " means";
      const std::string literal = CodeSpan(row.cells[2]);
      if (!literal.empty()) {
        EXPECT_EQ(TypeOfLiteral(literal), row.cells[1])
            << Where(row) << ": default " << literal << " is not a " << row.cells[1];
      }
    }
  }
}

// Each default written as a TOML literal parses, alone in an otherwise minimal config.
TEST_F(ConfigurationDocTest, DocumentedDefaultsParse) {
  // Keys that are only valid beside another one.
  const std::map<std::string, std::string> context = {
      {"cloudevents_mode", "format = \"cloudevents\""},
      {"cloudevents_source", "format = \"cloudevents\""},
  };
  for (const config::SectionKeys& section : config::AcceptedKeys()) {
    for (const auto& [key, row] : KeyRows(section.section)) {
      if (row.cells.size() != kKeyColumns) continue;
      const std::string literal = CodeSpan(row.cells[2]);
      if (literal.empty()) continue;
      std::map<std::string, std::string> postgres = {{"conninfo", "\"host=localhost\""},
                                                     {"tables", "[\"public.outbox\"]"}};
      std::string extra;
      if (section.section == "postgres") {
        postgres[key] = literal;
      } else {
        extra = Bracketed(section.section) + "\n" + key + " = " + literal + "\n";
        if (auto it = context.find(key); it != context.end()) extra += it->second + "\n";
      }
      std::string toml = "[postgres]\n";
      for (const auto& [name, value] : postgres) toml += name + " = " + value + "\n";
      toml += "[kafka]\n\"bootstrap.servers\" = \"localhost:9092\"\n" + extra;
      auto parsed = config::ParseConfig(toml, "default", config::Environment());
      EXPECT_TRUE(parsed.ok()) << Where(row) << ": the documented default " << key << " = "
                               << literal << " does not parse: " << parsed.status();
    }
  }
}

// Every property librdkafka knows (global and topic-level), from its own property table.
std::set<std::string> LibrdkafkaProperties() {
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  rd_kafka_conf_properties_show(out);
  std::fclose(out);
  std::set<std::string> names;
  std::istringstream lines(std::string(text, size));
  std::free(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t end = line.find(' ');
    if (end != std::string::npos && end > 0) names.insert(line.substr(0, end));
  }
  return names;
}

TEST_F(ConfigurationDocTest, KafkaRowsAreLibrdkafkaProperties) {
  const Section* kafka = FindSection(sections_, kKafkaSection);
  ASSERT_NE(kafka, nullptr);
  ASSERT_FALSE(kafka->rows.empty());
  const std::set<std::string> properties = LibrdkafkaProperties();
  ASSERT_TRUE(properties.contains("bootstrap.servers")) << "cannot read librdkafka's properties";
  for (const TableRow& row : kafka->rows) {
    const std::string property = CodeSpan(row.cells[0]);
    EXPECT_TRUE(properties.contains(property))
        << Where(row) << ": " << property << " is not a librdkafka property";
  }
}

TEST_F(ConfigurationDocTest, EnvironmentVariablesMatchTheCode) {
  const std::set<std::string> known = {
      std::string(config::kEnvConninfo), std::string(config::kEnvBootstrapServers),
      std::string(config::kEnvSaslPassword), std::string(daemon::kEnvLogLevel),
      std::string(daemon::kEnvLogFormat)};
  const Section* section = FindSection(sections_, kEnvironmentSection);
  ASSERT_NE(section, nullptr) << kConfigurationPage << ": no ## " << kEnvironmentSection;
  std::set<std::string> documented;
  for (const TableRow& row : section->rows) {
    const std::string name = CodeSpan(row.cells[0]);
    EXPECT_TRUE(known.contains(name)) << Where(row) << ": " << name << " is read by no code";
    documented.insert(name);
  }
  for (const std::string& name : known) {
    EXPECT_TRUE(documented.contains(name))
        << kConfigurationPage << ": " << name << " is read but not in ## " << kEnvironmentSection;
  }
}

// The TOML blocks of `markdown` (```toml fences).
std::vector<std::string> TomlBlocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  const std::regex fence("```toml\n([\\s\\S]*?)```");
  for (std::sregex_iterator it(markdown.begin(), markdown.end(), fence), end; it != end; ++it) {
    blocks.push_back((*it)[1]);
  }
  return blocks;
}

// The example configs users copy are accepted as they are (every ${NAME} set).
TEST(ExampleConfigTest, ExamplesParse) {
  const config::Environment any = [](std::string_view) -> std::optional<std::string> {
    return "example";
  };
  for (const char* page : {"README.md", "docs/configuration.md"}) {
    const std::vector<std::string> blocks = TomlBlocks(ReadSource(page));
    EXPECT_FALSE(blocks.empty()) << page << ": no ```toml example";
    for (const std::string& block : blocks) {
      auto parsed = config::ParseConfig(block, page, any);
      EXPECT_TRUE(parsed.ok()) << page << ": example does not parse: " << parsed.status();
    }
  }
  auto docker = config::ParseConfig(ReadSource("docker/outboxd.toml"), "docker/outboxd.toml", any);
  EXPECT_TRUE(docker.ok()) << docker.status();
  ASSERT_TRUE(docker.ok());
  EXPECT_EQ(docker->http.listen, "0.0.0.0:8587") << "docker/compose.yaml polls /readyz on 8587";
}

TEST(OperatingDocTest, ExitCodesMatchExitCodesH) {
  std::map<int, std::string> codes;
  const std::string header = ReadSource(kExitCodesHeader);
  const std::regex constant(R"(inline constexpr int (kExit\w+) = (\d+);)");
  for (std::sregex_iterator it(header.begin(), header.end(), constant), end; it != end; ++it) {
    codes.emplace(std::stoi((*it)[2]), (*it)[1]);
  }
  ASSERT_GE(codes.size(), 2u) << kExitCodesHeader << ": no kExit constants found";
  const std::vector<Section> sections = ParseSections(ReadSource(kOperatingPage));
  const Section* section = FindSection(sections, kExitCodesSection);
  ASSERT_NE(section, nullptr) << kOperatingPage << ": no ## " << kExitCodesSection;
  std::set<int> documented;
  for (const TableRow& row : section->rows) {
    const std::string code = CodeSpan(row.cells[0]).empty() ? row.cells[0] : CodeSpan(row.cells[0]);
    ASSERT_TRUE(std::regex_match(code, std::regex("[0-9]+")))
        << kOperatingPage << ":" << row.line << ": the first cell must be an exit code";
    const int value = std::stoi(code);
    EXPECT_TRUE(codes.contains(value)) << kOperatingPage << ":" << row.line << ": exit code "
                                       << value << " is not in " << kExitCodesHeader;
    EXPECT_GE(row.cells.size(), 2u);
    documented.insert(value);
  }
  for (const auto& [value, name] : codes) {
    EXPECT_TRUE(documented.contains(value))
        << kOperatingPage << ": exit code " << value << " (" << name << ") is not documented";
  }
}

}  // namespace
}  // namespace outboxd::docs
