# Version and commit of this build, from git (included by the top-level CMakeLists.txt).
#
# Sets OUTBOXD_VERSION_STRING, OUTBOXD_COMMIT_STRING and OUTBOXD_DEB_VERSION, and defines the
# INTERFACE target `outboxd_build_info`: any target that links it gets the string macros
# OUTBOXD_VERSION (e.g. "0.1.0-57-g92ff74e" or "1.2.0"; "-dirty" when the tree had changes)
# and OUTBOXD_COMMIT (the full commit hash, or "unknown").
#
#   git describe --tags --always --dirty, with a tag "vX.Y.Z"/"X.Y.Z"  -> "X.Y.Z[-N-gHASH][-dirty]"
#   no such tag reachable                  -> "<project version>-<commits>-gHASH[-dirty]"
#   not a git checkout (source tarball)    -> "<project version>", commit "unknown"
# -DOUTBOXD_VERSION_OVERRIDE=… / -DOUTBOXD_COMMIT_OVERRIDE=… replace both (distribution builds).
# The values are taken at configure time; CMake re-configures by itself when HEAD moves (commit,
# checkout, rebase). scripts/package always re-configures, so a package's "-dirty" is accurate.

set(OUTBOXD_VERSION_OVERRIDE "" CACHE STRING "Version to report instead of git describe's")
set(OUTBOXD_COMMIT_OVERRIDE "" CACHE STRING "Commit to report instead of git's HEAD")

find_package(Git QUIET)

# outboxd_git(OUT ARGS...) — OUT = trimmed stdout of `git ARGS...` in the source dir, "" on error.
function(outboxd_git out)
  set(${out} "" PARENT_SCOPE)
  if(NOT GIT_EXECUTABLE)
    return()
  endif()
  execute_process(COMMAND "${GIT_EXECUTABLE}" ${ARGN}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE text
    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc EQUAL 0)
    set(${out} "${text}" PARENT_SCOPE)
  endif()
endfunction()

# Re-run CMake when HEAD or the branch it points to moves, so the version follows commits.
function(outboxd_watch_git_head)
  outboxd_git(git_dir rev-parse --absolute-git-dir)
  outboxd_git(common_dir rev-parse --git-common-dir)
  outboxd_git(ref rev-parse --symbolic-full-name HEAD)
  if(NOT IS_ABSOLUTE "${common_dir}")
    set(common_dir "${PROJECT_SOURCE_DIR}/${common_dir}")
  endif()
  foreach(file "${git_dir}/HEAD" "${common_dir}/${ref}" "${common_dir}/packed-refs")
    if(EXISTS "${file}" AND NOT IS_DIRECTORY "${file}")
      set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
        "${file}")
    endif()
  endforeach()
endfunction()

# Only this project's own repository counts, not one the source tree happens to sit inside.
outboxd_git(git_toplevel rev-parse --show-toplevel)
set(describe "")
set(tag "")
set(commit "unknown")
if(git_toplevel)
  file(REAL_PATH "${git_toplevel}" git_toplevel)
  file(REAL_PATH "${PROJECT_SOURCE_DIR}" source_real)
  if(git_toplevel STREQUAL source_real)
    set(match --match "v[0-9]*" --match "[0-9]*")
    outboxd_git(describe describe --tags --always --dirty ${match})
    outboxd_git(tag describe --tags --abbrev=0 ${match})  # "" when no version tag is reachable
    outboxd_git(commit rev-parse HEAD)
    outboxd_git(count rev-list --count HEAD)
    outboxd_watch_git_head()
  endif()
endif()

if(tag AND describe MATCHES "^v?([0-9].*)$")
  set(OUTBOXD_VERSION_STRING "${CMAKE_MATCH_1}")
elseif(describe)
  # No version tag yet: describe printed only the abbreviated hash (and "-dirty").
  set(OUTBOXD_VERSION_STRING "${PROJECT_VERSION}-${count}-g${describe}")
else()
  set(OUTBOXD_VERSION_STRING "${PROJECT_VERSION}")
endif()
if(NOT commit)
  set(commit "unknown")
endif()
set(OUTBOXD_COMMIT_STRING "${commit}")
if(OUTBOXD_VERSION_OVERRIDE)
  set(OUTBOXD_VERSION_STRING "${OUTBOXD_VERSION_OVERRIDE}")
endif()
if(OUTBOXD_COMMIT_OVERRIDE)
  set(OUTBOXD_COMMIT_STRING "${OUTBOXD_COMMIT_OVERRIDE}")
endif()
foreach(value "${OUTBOXD_VERSION_STRING}" "${OUTBOXD_COMMIT_STRING}")
  if(NOT value MATCHES "^[A-Za-z0-9][A-Za-z0-9.+~_-]*$")
    message(FATAL_ERROR "outboxd version or commit \"${value}\" has characters a version may "
      "not have; tag releases as vX.Y.Z or pass -DOUTBOXD_VERSION_OVERRIDE=X.Y.Z")
  endif()
endforeach()

# Debian: "0.1.0-57-g92ff74e-dirty" -> "0.1.0+57.g92ff74e.dirty" (sorts after 0.1.0, and later
# commits sort after earlier ones by their count).
string(REGEX REPLACE "^([^-]+)-(.*)$" "\\1+\\2" OUTBOXD_DEB_VERSION "${OUTBOXD_VERSION_STRING}")
string(REPLACE "-" "." OUTBOXD_DEB_VERSION "${OUTBOXD_DEB_VERSION}")
string(REPLACE "_" "." OUTBOXD_DEB_VERSION "${OUTBOXD_DEB_VERSION}")

add_library(outboxd_build_info INTERFACE)
target_compile_definitions(outboxd_build_info INTERFACE
  OUTBOXD_VERSION="${OUTBOXD_VERSION_STRING}" OUTBOXD_COMMIT="${OUTBOXD_COMMIT_STRING}")
message(STATUS "outboxd version ${OUTBOXD_VERSION_STRING} (commit ${OUTBOXD_COMMIT_STRING})")
