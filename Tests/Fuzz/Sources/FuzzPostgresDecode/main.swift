// main: hands fuzzPostgresDecode to libFuzzer (see runLibFuzzer).
import FuzzSupport

runLibFuzzer(fuzzPostgresDecode)
