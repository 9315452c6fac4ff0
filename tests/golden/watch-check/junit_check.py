"""Checks a JUnit XML report as CI readers expect it (used by junit.test):

well-formed XML; root <testsuites> with name, tests, failures and errors; each <testsuite> with
name, tests, failures and errors (non-negative integers); each <testcase> with classname and name;
a suite's tests = its testcases, failures = testcases with <failure>, errors = testcases with
<error>; the root totals are the sums over the suites; a testcase has at most one <failure> or
<error>. Prints one summary line, or the problems found and exits 1.

usage: junit_check.py REPORT.xml
"""
import sys
import xml.etree.ElementTree as ET


def main(path):
    problems = []
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print(f"{path}: not well-formed XML: {e}")
        return 1

    def count(element, name, where):
        value = element.get(name)
        if value is None:
            problems.append(f"{where}: attribute '{name}' is missing")
            return None
        if not value.isdigit():
            problems.append(f"{where}: {name}={value!r} is not a non-negative integer")
            return None
        return int(value)

    if root.tag != "testsuites":
        problems.append(f"root element is <{root.tag}>, expected <testsuites>")
    if root.get("name") is None:
        problems.append("testsuites: attribute 'name' is missing")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    suites = root.findall("testsuite")
    for other in root:
        if other.tag != "testsuite":
            problems.append(f"testsuites: unexpected child <{other.tag}>")
    for i, suite in enumerate(suites):
        where = f"testsuite[{i}]"
        if suite.get("name") is None:
            problems.append(f"{where}: attribute 'name' is missing")
        cases = suite.findall("testcase")
        actual = {"tests": len(cases), "failures": 0, "errors": 0}
        for k, case in enumerate(cases):
            cwhere = f"{where}.testcase[{k}]"
            for attribute in ("classname", "name"):
                if not case.get(attribute):
                    problems.append(f"{cwhere}: attribute '{attribute}' is missing or empty")
            failures, errors = case.findall("failure"), case.findall("error")
            if len(failures) + len(errors) > 1:
                problems.append(f"{cwhere}: more than one <failure>/<error>")
            actual["failures"] += bool(failures)
            actual["errors"] += bool(errors) and not failures
        for name in ("tests", "failures", "errors"):
            stated = count(suite, name, where)
            if stated is not None and stated != actual[name]:
                problems.append(f"{where}: {name}={stated} but it holds {actual[name]}")
            totals[name] += actual[name]
    for name in ("tests", "failures", "errors"):
        stated = count(root, name, "testsuites")
        if stated is not None and stated != totals[name]:
            problems.append(f"testsuites: {name}={stated} but the suites add up to {totals[name]}")
    if problems:
        for p in problems:
            print(f"{path}: {p}")
        return 1
    print(f"junit ok: {len(suites)} suites, {totals['tests']} tests, "
          f"{totals['failures']} failures, {totals['errors']} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
