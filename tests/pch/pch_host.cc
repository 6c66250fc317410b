// The program that builds the test programs' precompiled headers (tests/CMakeLists.txt,
// PLACER_TEST_PCH); it has no code of its own (GoogleTest's main links in, and runs no test).
