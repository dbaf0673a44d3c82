# Runs one example for ctest: passes where it exits with EXPECT_EXIT and its output (stdout and stderr) matches the
# regular expression EXPECT. ctest's PASS_REGULAR_EXPRESSION alone would ignore the exit code.
#   cmake -DPROGRAM=path -DARGUMENTS="a;b" -DEXPECT_EXIT=0 -DEXPECT=regex -P run_example.cmake
execute_process(COMMAND ${PROGRAM} ${ARGUMENTS}
  RESULT_VARIABLE exit_code
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
message("${output}")
if(NOT exit_code STREQUAL EXPECT_EXIT)
  message(FATAL_ERROR "exit code ${exit_code}, expected ${EXPECT_EXIT}")
endif()
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not match: ${EXPECT}")
endif()
