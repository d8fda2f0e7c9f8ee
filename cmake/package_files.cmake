# Writes the package's generated files into OUTPUT_DIR (cmake/package.cmake):
# changelog.Debian.gz for VERSION, dated by the commit (SOURCE_DATE_EPOCH when
# set, as reproducible builds define it), the man page and README gzip -9n,
# and abcictl@.service made from abcictl.service. Run at every build; a file
# is rewritten only when its content changed.
cmake_policy(SET CMP0007 NEW)  # the replacements below are pairs, kept whole

include("${CMAKE_CURRENT_LIST_DIR}/write_if_changed.cmake")

# `source` compressed as dh_compress does: -9, no name or time stamp in the header.
function(gzip_if_changed source output)
  if(NOT EXISTS "${output}" OR "${source}" IS_NEWER_THAN "${output}")
    execute_process(COMMAND gzip -9nc "${source}" OUTPUT_FILE "${output}" COMMAND_ERROR_IS_FATAL ANY)
  endif()
endfunction()

file(MAKE_DIRECTORY "${OUTPUT_DIR}")

set(epoch "$ENV{SOURCE_DATE_EPOCH}")
execute_process(COMMAND git -C "${SOURCE_DIR}" log -1 --format=%ct%n%h
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR commit STREQUAL "")
  set(commit "0\nunknown")
endif()
string(REPLACE "\n" ";" commit "${commit}")
list(GET commit 0 commit_epoch)
list(GET commit 1 commit_hash)
if(epoch STREQUAL "")
  set(epoch ${commit_epoch})
endif()
set(ENV{SOURCE_DATE_EPOCH} ${epoch})  # string(TIMESTAMP) reads it
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
write_if_changed("${OUTPUT_DIR}/changelog.Debian"
  "abcictl (${VERSION}) unstable; urgency=medium\n\n  * Built from commit ${commit_hash}; its history is the\n    git log of the abcictl repository.\n\n -- ${MAINTAINER}  ${date}\n")
gzip_if_changed("${OUTPUT_DIR}/changelog.Debian" "${OUTPUT_DIR}/changelog.Debian.gz")
gzip_if_changed("${SOURCE_DIR}/man/abcictl.1" "${OUTPUT_DIR}/abcictl.1.gz")
gzip_if_changed("${SOURCE_DIR}/README.md" "${OUTPUT_DIR}/README.md.gz")

# One instance per configuration file, hardened as the main unit (the same
# lines: one place to change them). `systemctl enable --now abcictl@NAME`
# serves /etc/abcictl/NAME.toml with its state in /var/lib/abcictl/NAME.
file(READ "${SOURCE_DIR}/packaging/abcictl.service" unit)
set(replacements
  "# The abcictl API server as a system service" "# abcictl@NAME serves /etc/abcictl/NAME.toml"
  "Description=abcictl API server (ABCI token layer)" "Description=abcictl API server %i"
  "--config /etc/abcictl/abcictl.toml" "--config /etc/abcictl/%i.toml"
  "EnvironmentFile=-/etc/abcictl/abcictl.env\n" "EnvironmentFile=-/etc/abcictl/abcictl.env\nEnvironmentFile=-/etc/abcictl/%i.env\n"
  "StateDirectory=abcictl\n" "StateDirectory=abcictl/%i\n"
  "ABCI_DATA_DIR=/var/lib/abcictl\n" "ABCI_DATA_DIR=/var/lib/abcictl/%i\n"
  "# /var/lib/abcictl, the service user's" "# /var/lib/abcictl/%i, the service user's")
while(replacements)
  list(POP_FRONT replacements from to)
  string(FIND "${unit}" "${from}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "packaging/abcictl.service no longer has '${from}': update cmake/package_files.cmake")
  endif()
  string(REPLACE "${from}" "${to}" unit "${unit}")
endwhile()
write_if_changed("${OUTPUT_DIR}/abcictl@.service" "${unit}")
