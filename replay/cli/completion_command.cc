// File: replay/cli/completion_command.cc
//
// `tally completion bash|zsh`: a shell completion script, written from the command line's own
// declarations (every subcommand, nested import sources, and their flags), so it cannot drift.
// zsh loads the bash script through bashcompinit. Install: README.md, "Shell completion".
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "replay/cli/commands.h"

#include <CLI/CLI.hpp>

namespace replay::cli {
namespace {

std::string Words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) {
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

std::vector<const CLI::App*> Subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::string BashScript(const CLI::App& app) {
  std::vector<std::string> names;
  std::string cases;
  for (const CLI::App* sub : Subcommands(app)) {
    names.push_back(sub->get_name());
    std::vector<std::string> nested;
    std::string nested_cases;
    for (const CLI::App* source : Subcommands(*sub)) {
      nested.push_back(source->get_name());
      nested_cases +=
          "        " + source->get_name() + ") opts=\"" + Words(FlagNames(*source)) + "\" ;;\n";
    }
    if (nested.empty()) {
      cases += "    " + sub->get_name() + ") opts=\"" + Words(FlagNames(*sub)) + "\" ;;\n";
    } else {
      cases += "    " + sub->get_name() + ")\n      if ((COMP_CWORD == 2)); then\n"
               + "        mapfile -t COMPREPLY < <(compgen -W \"" + Words(nested)
               + "\" -- \"${cur}\")\n        return\n      fi\n      case \"${COMP_WORDS[2]}\" in\n"
               + nested_cases + "      esac ;;\n";
    }
  }
  return "# tally completion for bash (`tally completion bash`); generated from tally's flags.\n"
         "_tally() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" opts=\"\"\n"
         "  if ((COMP_CWORD == 1)); then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"" +
         Words(names) +
         " --help --version\" -- \"${cur}\")\n"
         "    return\n"
         "  fi\n"
         "  case \"${COMP_WORDS[1]}\" in\n" +
         cases +
         "  esac\n"
         "  if [[ \"${cur}\" == -* ]]; then\n"
         "    mapfile -t COMPREPLY < <(compgen -W \"${opts} --help\" -- \"${cur}\")\n"
         "  else\n"
         "    mapfile -t COMPREPLY < <(compgen -f -- \"${cur}\")\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -F _tally tally\n";
}

}  // namespace

Command AddCompletionCommand(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print a shell completion script: source <(tally completion bash)");
  cmd->add_option("shell", *shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));
  const CLI::App* root = &app;
  return {cmd, [shell, root] {
            const std::string bash = BashScript(*root);
            if (*shell == "zsh") {
              std::fputs(
                  "# tally completion for zsh (`tally completion zsh`): the bash script "
                  "through bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n",
                  stdout);
            }
            std::fputs(bash.c_str(), stdout);
            return 0;
          }};
}

}  // namespace replay::cli
