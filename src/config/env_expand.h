#pragma once
// Internal to outboxd_config: ${NAME} references to environment variables in the file's string
// values, so secrets can stay out of it: conninfo = "host=db password=${PGPASSWORD}".
//
// Rules: NAME is [A-Za-z_][A-Za-z0-9_]*; "$${" is a literal "${"; a "$" not followed by "{" is
// literal; expanded values are not expanded again. [outbox] topic is left alone: its
// ${aggregatetype} is the routing placeholder, not a variable.

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "config/config.h"
#include "toml++/toml.h"

namespace outboxd::config::internal {

// Expands `text`. `where` ("outboxd.toml:3: [postgres] conninfo") prefixes errors, which name
// the variable but never a value: InvalidArgument when a variable is unset or empty, or a
// reference is malformed.
absl::StatusOr<std::string> ExpandReferences(std::string_view text, std::string_view where,
                                             const Environment& env);

// Expands every string value in `root` (in arrays and nested tables too) in place.
absl::Status ExpandEnvironment(toml::table& root, std::string_view source, const Environment& env);

}  // namespace outboxd::config::internal
