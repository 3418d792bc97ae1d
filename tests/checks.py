"""checks.py: what the test scripts share. check() records an expectation
that does not hold and prints it; expect() compares a value with the one
wanted and prints either way; report() ends a script with the count, as
its exit status."""

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def expect(what, got, want):
    """got == want, printed as ok or FAIL with both values."""
    ok = got == want
    print("%s: %s: got %s, want %s" % ("ok" if ok else "FAIL", what, got, want))
    if not ok:
        failures.append(what)
    return ok


def report(name):
    if failures:
        print("%s: %d check(s) failed" % (name, len(failures)))
        return 1
    print("%s: all checks passed" % name)
    return 0
