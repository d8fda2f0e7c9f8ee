# write_if_changed(PATH CONTENT): writes CONTENT to PATH only when it differs,
# so that a generated file's time stamp moves, and its dependants rebuild,
# only when it changed. For scripts run with `cmake -P`.
function(write_if_changed path content)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE "${path}" "${content}")
  endif()
endfunction()
