"""checks.py: what the test scripts share. check() records an expectation
that does not hold and prints it; report() ends a script with the count,
as its exit status."""

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def report(name):
    if failures:
        print("%s: %d check(s) failed" % (name, len(failures)))
        return 1
    print("%s: all checks passed" % name)
    return 0
