// main: hands fuzzSQLiteDecode to libFuzzer (see runLibFuzzer).
import FuzzSupport

runLibFuzzer(fuzzSQLiteDecode)
