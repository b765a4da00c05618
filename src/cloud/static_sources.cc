// The sources that read local state only: environment variables and the shared
// config/credentials files.
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "cloud/credential_source.h"
#include "common/strings.h"

namespace outboxd::cloud {
namespace {

class EnvironmentSource final : public CredentialSource {
 public:
  explicit EnvironmentSource(EnvLookup env) : env_(std::move(env)) {}
  std::string Name() const override { return "environment"; }

  absl::StatusOr<AwsCredentials> Fetch() override {
    const auto key = env_("AWS_ACCESS_KEY_ID");
    const auto secret = env_("AWS_SECRET_ACCESS_KEY");
    if (!key && !secret) {
      return absl::NotFoundError("environment: AWS_ACCESS_KEY_ID is not set");
    }
    if (!key || !secret) {
      return absl::InvalidArgumentError(Concat(
          "environment: ", key ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY", " is set but ",
          key ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID", " is not; set both or neither"));
    }
    return AwsCredentials{*key, *secret, env_("AWS_SESSION_TOKEN").value_or(""), std::nullopt,
                          Name()};
  }

 private:
  EnvLookup env_;
};

using IniSection = std::map<std::string, std::string>;
using IniFile = std::map<std::string, IniSection>;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// The AWS shared-file dialect of INI: [section], key = value, '#' and ';' comment lines.
IniFile ParseIni(std::istream& in) {
  IniFile file;
  IniSection* section = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view text = Trim(line);
    if (text.empty() || text.front() == '#' || text.front() == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      section = &file[std::string(Trim(text.substr(1, text.size() - 2)))];
      continue;
    }
    const size_t equals = text.find('=');
    if (section == nullptr || equals == std::string_view::npos) continue;
    (*section)[std::string(Trim(text.substr(0, equals)))] =
        std::string(Trim(text.substr(equals + 1)));
  }
  return file;
}

class ProfileSource final : public CredentialSource {
 public:
  explicit ProfileSource(EnvLookup env)
      : env_(std::move(env)), profile_(env_("AWS_PROFILE").value_or("default")) {}
  std::string Name() const override { return Concat("profile:", profile_); }

  absl::StatusOr<AwsCredentials> Fetch() override {
    const std::string home = env_("HOME").value_or("");
    const std::string credentials_path =
        env_("AWS_SHARED_CREDENTIALS_FILE").value_or(Concat(home, "/.aws/credentials"));
    const std::string config_path = env_("AWS_CONFIG_FILE").value_or(Concat(home, "/.aws/config"));
    // The credentials file names sections after the profile; the config file says
    // "[profile name]", except for "[default]".
    const std::string config_section =
        profile_ == "default" ? profile_ : Concat("profile ", profile_);
    for (const auto& [path, section_name] :
         {std::pair{credentials_path, profile_}, std::pair{config_path, config_section}}) {
      std::ifstream in(path);
      if (!in) continue;  // Absent files are normal; the SDKs skip them too.
      const IniFile file = ParseIni(in);
      const auto section = file.find(section_name);
      if (section == file.end()) continue;
      return FromSection(section->second, path);
    }
    if (env_("AWS_PROFILE")) {
      return absl::FailedPreconditionError(
          Concat(Name(), ": AWS_PROFILE names a profile found in neither ", credentials_path,
                 " nor ", config_path, "; fix the name or the files"));
    }
    return absl::NotFoundError(
        Concat(Name(), ": no such profile in ", credentials_path, " or ", config_path));
  }

 private:
  absl::StatusOr<AwsCredentials> FromSection(const IniSection& section,
                                             const std::string& path) const {
    const auto value = [&](const char* key) {
      const auto found = section.find(key);
      return found == section.end() ? std::string() : found->second;
    };
    AwsCredentials credentials{value("aws_access_key_id"), value("aws_secret_access_key"),
                               value("aws_session_token"), std::nullopt, Name()};
    if (!credentials.access_key_id.empty() && !credentials.secret_access_key.empty()) {
      return credentials;
    }
    for (const char* unsupported :
         {"role_arn", "sso_session", "sso_start_url", "credential_process"}) {
      if (!value(unsupported).empty()) {
        return absl::FailedPreconditionError(Concat(
            Name(), " in ", path, " uses ", unsupported,
            ", which outboxd does not support; give the profile aws_access_key_id and "
            "aws_secret_access_key, or use web identity, container or instance credentials"));
      }
    }
    return absl::InvalidArgumentError(Concat(
        Name(), " in ", path, " lacks aws_access_key_id or aws_secret_access_key; set both"));
  }

  EnvLookup env_;
  std::string profile_;
};

}  // namespace

EnvLookup ProcessEnv() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

WallClock SystemWallClock() {
  return [] { return std::chrono::system_clock::now(); };
}

std::unique_ptr<CredentialSource> MakeEnvironmentSource(EnvLookup env) {
  return std::make_unique<EnvironmentSource>(std::move(env));
}

std::unique_ptr<CredentialSource> MakeProfileSource(EnvLookup env) {
  return std::make_unique<ProfileSource>(std::move(env));
}

std::vector<std::unique_ptr<CredentialSource>> DefaultSources(const EnvLookup& env,
                                                              const WallClock& clock) {
  std::vector<std::unique_ptr<CredentialSource>> sources;
  sources.push_back(MakeEnvironmentSource(env));
  sources.push_back(MakeWebIdentitySource(env, clock));
  sources.push_back(MakeProfileSource(env));
  sources.push_back(MakeContainerSource(env));
  sources.push_back(MakeImdsSource(env));
  return sources;
}

}  // namespace outboxd::cloud
