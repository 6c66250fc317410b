"""Checks a JUnit XML file against the rules of the schema Jenkins reads (its xunit plugin's
junit-10.xsd; GitLab reads the same elements): which elements may hold which, the required and
allowed attributes, the time format, and that the counts agree with the test cases.

Usage: python3 check_junit.py REPORT.xml   (exit 0 when valid; the first problem otherwise)
"""
import re
import sys
import xml.etree.ElementTree as ET

TIME = re.compile(r"^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$")
SUITES_ATTRS = {"name", "time", "tests", "failures", "errors"}
SUITE_REQUIRED = {"name", "tests", "failures", "errors"}
SUITE_ATTRS = SUITE_REQUIRED | {"group", "time", "skipped", "timestamp", "hostname", "id", "package", "file",
                                "log", "url"}
SUITE_CHILDREN = {"testsuite", "properties", "testcase", "system-out", "system-err"}
CASE_ATTRS = {"name", "time", "classname", "group"}
CASE_CHILDREN = {"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure", "flakyError",
                 "system-out", "system-err"}
RESULT_ATTRS = {"type", "message"}


def fail(message):
    print("invalid JUnit XML: " + message)
    sys.exit(1)


def check_attrs(element, allowed, required=frozenset()):
    extra = set(element.attrib) - allowed
    if extra:
        fail("<%s> has attributes the schema does not allow: %s" % (element.tag, sorted(extra)))
    missing = set(required) - set(element.attrib)
    if missing:
        fail("<%s> lacks required attributes %s" % (element.tag, sorted(missing)))
    if "time" in element.attrib and not TIME.match(element.attrib["time"]):
        fail("<%s time=%r> is not a number of seconds" % (element.tag, element.attrib["time"]))
    for key in ("tests", "failures", "errors", "skipped"):
        if key in element.attrib and not element.attrib[key].isdigit():
            fail("<%s %s=%r> is not a count" % (element.tag, key, element.attrib[key]))


def check_case(case):
    check_attrs(case, CASE_ATTRS, {"name"})
    for child in case:
        if child.tag not in CASE_CHILDREN:
            fail("<testcase name=%r> holds <%s>" % (case.get("name"), child.tag))
        if child.tag in ("skipped", "error", "failure"):
            check_attrs(child, RESULT_ATTRS)
        if child.tag in ("system-out", "system-err") and len(child):
            fail("<%s> holds elements" % child.tag)
    kinds = [c.tag for c in case]
    return ("failure" in kinds, "error" in kinds, "skipped" in kinds)


def check_suite(suite):
    check_attrs(suite, SUITE_ATTRS, SUITE_REQUIRED)
    tests = failures = errors = skipped = 0
    for child in suite:
        if child.tag not in SUITE_CHILDREN:
            fail("<testsuite name=%r> holds <%s>" % (suite.get("name"), child.tag))
        if child.tag == "properties":
            check_attrs(child, set())
            for prop in child:
                if prop.tag != "property":
                    fail("<properties> holds <%s>" % prop.tag)
                check_attrs(prop, {"name", "value"}, {"name", "value"})
        elif child.tag == "testcase":
            failure, error, skip = check_case(child)
            tests += 1
            failures += failure
            errors += error and not failure
            skipped += skip and not failure and not error
        elif child.tag == "testsuite":
            t, f, e, s = check_suite(child)
            tests, failures, errors, skipped = tests + t, failures + f, errors + e, skipped + s
    counted = {"tests": tests, "failures": failures, "errors": errors}
    if "skipped" in suite.attrib:
        counted["skipped"] = skipped
    for key, value in counted.items():
        if int(suite.get(key)) != value:
            fail("<testsuite name=%r %s=%s> but it holds %d" % (suite.get("name"), key, suite.get(key), value))
    return tests, failures, errors, skipped


def main():
    root = ET.parse(sys.argv[1]).getroot()
    if root.tag == "testsuite":
        check_suite(root)
        return
    if root.tag != "testsuites":
        fail("the root is <%s>, not <testsuites> or <testsuite>" % root.tag)
    check_attrs(root, SUITES_ATTRS)
    totals = [0, 0, 0]
    for suite in root:
        if suite.tag != "testsuite":
            fail("<testsuites> holds <%s>" % suite.tag)
        t, f, e, _ = check_suite(suite)
        totals = [totals[0] + t, totals[1] + f, totals[2] + e]
    for key, value in zip(("tests", "failures", "errors"), totals):
        if key in root.attrib and int(root.get(key)) != value:
            fail("<testsuites %s=%s> but its suites hold %d" % (key, root.get(key), value))


if __name__ == "__main__":
    main()
