"""Command line: ``python -m mlnotes.homework {grade,grade-one,autograder,variant,encrypt-key,
student-version,list,check-assignment,new-notebook,release}``.

Every command that grades or describes an assignment takes ``--assignment-dir DIR`` (a course's
own assignment folder: ``assignment.toml``, the checks, the encrypted key, the student notebook;
see the instructor's guide, book/homework/instructors.md) or ``--assignment NAME`` (a shipped
folder: spectral, spectral-graded, ...).

grade SUBMISSIONS_DIR --assignment NAME --out grades.csv [--solutions DIR --jobs N --timeout S
      --memory MB --block sklearn,...]
    Grade a folder of notebooks; writes the CSV, ``feedback/<student>.txt`` and
    ``results/<student>/results.json`` (Gradescope format) next to the CSV.
grade-one NOTEBOOK --assignment NAME --results results.json [--solutions DIR ...]
    Grade one notebook (e.g. inside a Gradescope autograder) and write its results.json.

The reference answers of the graded questions are the instructor's: ``--solutions DIR`` (the
folder holding ``reference.py``), else the environment variable MLNOTES_HOMEWORK_SOLUTIONS, else
``book/homework/instructor/`` of the checkout mlnotes runs from; without them nothing is graded.
Graded code can never read that folder. The graded set's key (``--assignment spectral-graded``,
...) is encrypted in the package: give the course's passphrase with ``--key-file FILE`` (or the
variables MLNOTES_HOMEWORK_KEY_FILE, MLNOTES_HOMEWORK_PASSPHRASE), and the course's seed of the
variants with ``--course-seed`` (or MLNOTES_COURSE_SEED).
autograder ASSIGNMENT --out autograder.zip [--key-file FILE --include-passphrase]
    Build Gradescope's autograder bundle (setup.sh, run_autograder, the encrypted key; the
    passphrase only with --include-passphrase).
variant STUDENT [--assignment NAME]
    Print a student's constants for the graded questions.
encrypt-key SOURCE.py --key-file FILE [--out PATH]
    Encrypt a graded key (the course's private source) under the passphrase in FILE: to rotate
    the passphrase, or into an assignment folder (--out DIR/key.enc: a course's own questions).
student-version INSTRUCTOR.ipynb -o STUDENT.ipynb
    Replace the solution regions (### BEGIN SOLUTION / ### END SOLUTION) by stubs.
list [--assignment-dir DIR]
    The assignments, each question marked graded (points) or a warm-up (a chapter exercise,
    0 points), then the chapter exercises outside any assignment (or one folder's questions).
check-assignment --assignment-dir DIR [--key-file FILE]
    Check the folder (the specification, the checks, the key, the notebook's stubs) and grade
    the key's own answers: each must pass, each listed mistake must fail.
new-notebook --assignment-dir DIR [--out NOTEBOOK]
    Write a starting student notebook from the specification (each question's text and stub).
release --assignment-dir DIR --out RELEASE_DIR
    Copy what students get (the student notebook, solutions stripped, the data files, and for
    a folder's own questions public.py and check.json: their check and variants, no key).
"""

import argparse
import json
import sys
import time
from pathlib import Path

from .assignments import ALL_ASSIGNMENTS, ASSIGNMENTS, GRADED, OWN, shipped
from .bank import get_question


def _assignment_options(parser, *, required=True, names=None, flag="--assignment"):
    """``--assignment NAME`` (a shipped folder) or ``--assignment-dir DIR`` (a course's)."""
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument(flag, dest="assignment", default=None,
                       choices=sorted(names or ALL_ASSIGNMENTS),
                       help="a shipped assignment (its folder inside the package)")
    group.add_argument("--assignment-dir", type=Path, default=None, metavar="DIR",
                       help="a course's assignment folder (holding assignment.toml; see the "
                            "instructor's guide); hidden from graded code")


def _load(args, parser, *, need_notebook=False):
    """The :class:`~.folder.Assignment` the options name (``None``: none named); a clear error
    (exit status 2) on any problem with the folder."""
    from .folder import AssignmentError, load_assignment, shipped_folder

    if getattr(args, "assignment_dir", None) is None and getattr(args, "assignment", None) is None:
        return None
    try:
        folder = (args.assignment_dir if args.assignment_dir is not None
                  else shipped_folder(args.assignment))
        return load_assignment(folder, need_notebook=need_notebook)
    except AssignmentError as exc:
        _fail(parser, exc)


def _fail(parser, exc):
    """Stop with status 2 and the folder's problem (no usage: the options were right)."""
    parser.exit(2, f"{parser.prog}: error: {exc}\n")


def _grading_options(parser):
    _assignment_options(parser)
    parser.add_argument("--solutions", type=Path, default=None, metavar="DIR",
                        help="the folder of the instructor's reference answers (holding "
                             "reference.py; default: $MLNOTES_HOMEWORK_SOLUTIONS, else "
                             "book/homework/instructor/ of this checkout); hidden from graded "
                             "code")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="CPU seconds per question (default 10; wall-clock time is only a "
                             "generous backstop for code that sleeps)")
    parser.add_argument("--memory", type=int, default=1024,
                        help="memory limit of the sandboxed process in MB (default 1024)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the hidden inputs (default: fresh and random)")
    parser.add_argument("--block", default="",
                        help="comma-separated packages graded code may not import, besides "
                             "mlnotes (e.g. sklearn)")
    _key_options(parser)


def _key_options(parser):
    parser.add_argument("--key-file", type=Path, default=None, metavar="FILE",
                        help="the file holding the course's passphrase of the graded set's key "
                             "(default: $MLNOTES_HOMEWORK_KEY_FILE, else "
                             "$MLNOTES_HOMEWORK_PASSPHRASE); hidden from graded code")
    parser.add_argument("--course-seed", default=None,
                        help="the course's seed of the students' variants (default: "
                             "$MLNOTES_COURSE_SEED, else the public default)")


def _packages(text):
    return [name.strip() for name in text.split(",") if name.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mlnotes.homework", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    grade = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    grade.add_argument("submissions", type=Path)
    grade.add_argument("--out", type=Path, required=True, help="the CSV to write")
    grade.add_argument("--jobs", type=int, default=2, help="submissions graded at once")
    _grading_options(grade)
    one = sub.add_parser("grade-one", help="grade one notebook, write Gradescope results.json")
    one.add_argument("notebook", type=Path)
    one.add_argument("--results", type=Path, required=True)
    one.add_argument("--student", default=None,
                     help="the student's id, whose variant is graded (default: the notebook's "
                          "file name without .ipynb)")
    _grading_options(one)
    student = sub.add_parser("student-version", help="make the student version of a notebook")
    student.add_argument("notebook", type=Path)
    student.add_argument("-o", "--output", type=Path, required=True)
    listing = sub.add_parser("list", help="list assignments and questions")
    _assignment_options(listing, required=False)
    bundle = sub.add_parser("autograder", help="build Gradescope's autograder.zip")
    bundle.add_argument("assignment", nargs="?", default=None, choices=sorted(ALL_ASSIGNMENTS))
    bundle.add_argument("--assignment-dir", type=Path, default=None, metavar="DIR",
                        help="a course's assignment folder instead of a shipped assignment")
    bundle.add_argument("--out", type=Path, required=True)
    bundle.add_argument("--include-passphrase", action="store_true",
                        help="put the passphrase (from --key-file) into the bundle, so that "
                             "Gradescope can open the key; without it, set "
                             "MLNOTES_HOMEWORK_PASSPHRASE in Gradescope's settings")
    bundle.add_argument("--timeout", type=float, default=10.0)
    bundle.add_argument("--memory", type=int, default=1024)
    _key_options(bundle)
    who = sub.add_parser("variant", help="a student's constants for the graded questions")
    who.add_argument("student")
    _assignment_options(who, required=False, names={**GRADED, **OWN})
    who.add_argument("--course-seed", default=None)
    check = sub.add_parser("check-assignment", help="check an assignment folder and grade "
                           "its key's own answers")
    _assignment_options(check)
    _key_options(check)
    start = sub.add_parser("new-notebook", help="write a starting student notebook from an "
                           "assignment folder's specification")
    _assignment_options(start)
    start.add_argument("--out", type=Path, default=None,
                       help="where to write it (default: the notebook the specification names)")
    out = sub.add_parser("release", help="copy what students get into a new folder")
    _assignment_options(out)
    out.add_argument("--out", type=Path, required=True, metavar="RELEASE_DIR")
    enc = sub.add_parser("encrypt-key", help="encrypt a graded key under a passphrase")
    enc.add_argument("source", type=Path)
    enc.add_argument("--key-file", type=Path, required=True, metavar="FILE")
    enc.add_argument("--out", type=Path, default=None,
                     help="where to write it (default: the package's data/graded-key.enc)")
    args = parser.parse_args(argv)
    if getattr(args, "key_file", None) is not None:
        from .keys import use_key_file

        try:
            use_key_file(args.key_file)
        except FileNotFoundError as exc:
            parser.error(str(exc))
    if getattr(args, "course_seed", None) is not None:
        from .variants import use_course_seed

        use_course_seed(args.course_seed)
    if getattr(args, "solutions", None) is not None:
        from .bank.solutions import use_solutions

        try:
            use_solutions(args.solutions)
        except FileNotFoundError as exc:
            parser.error(str(exc))

    if args.command == "autograder" and (args.assignment is None) == (args.assignment_dir is None):
        parser.error("autograder: give a shipped ASSIGNMENT or --assignment-dir DIR (one of them)")
    assignment = _load(args, parser, need_notebook=args.command in ("check-assignment",
                                                                     "release"))
    if args.command == "grade":
        from .grader import grade_folder, isolation_warning
        from .handmark import FILE

        if not args.submissions.is_dir():
            parser.error(f"{args.submissions} is not a folder of submissions")
        start = time.perf_counter()
        try:
            results = grade_folder(args.submissions, assignment, args.out, jobs=args.jobs,
                                   timeout=args.timeout, memory_mb=args.memory, seed=args.seed,
                                   block=_packages(args.block))
        except (ValueError, LookupError) as exc:  # an output folder inside the submissions,
            parser.error(str(exc))                 # one not hideable, no reference answers
        print(f"graded {len(results)} submission(s) in {time.perf_counter() - start:.1f} s; "
              f"wrote {args.out}, feedback/, results/, grading.json (the seed, to grade "
              f"again on the same inputs) and, for the graded set, {FILE} in {args.out.parent or '.'}")
        warning = isolation_warning(json.loads(
            (args.out.parent / "grading.json").read_text())["isolation"])
        if warning:
            print(warning, file=sys.stderr)
    elif args.command == "grade-one":
        from .grader import Grader, escape, gradescope_json, isolation_warning, shown_name, write_new
        from .sandbox import check_private

        results_dir = args.results.resolve().parent
        try:  # graded code may not read the folder the results go to
            check_private([results_dir])
        except ValueError as exc:
            parser.error(str(exc))
        try:
            grader = Grader(assignment, timeout=args.timeout, memory_mb=args.memory,
                            seed=args.seed, block=_packages(args.block), private=[results_dir])
        except (ValueError, LookupError) as exc:  # a solutions folder not hideable, or none
            parser.error(str(exc))
        results_dir.mkdir(parents=True, exist_ok=True)
        student_id = args.student or shown_name(args.notebook.stem)
        result = grader.grade_safely(student_id, args.notebook)
        write_new(args.results, json.dumps(gradescope_json(result), indent=1))
        print(f"{escape(result.student, 300)}: {result.total:g} / {result.max_total:g}")
        warning = isolation_warning(grader.isolation)
        if warning:
            print(warning, file=sys.stderr)
    elif args.command == "autograder":
        from .gradescope import build_bundle

        try:
            build_bundle(assignment, args.out, include_passphrase=args.include_passphrase,
                         timeout=args.timeout, memory_mb=args.memory)
        except (ValueError, LookupError) as exc:
            parser.error(str(exc))
        print(f"wrote {args.out}")
    elif args.command == "variant":
        from .student import my_variant

        print(repr(my_variant(args.student, assignment.name if assignment is not None and
                              assignment.shipped else assignment)))
    elif args.command == "encrypt-key":
        from .keys import ENCRYPTED, encrypt, passphrase

        out = args.out or ENCRYPTED
        out.write_text(encrypt(args.source.read_text(encoding="utf-8"), passphrase()),
                       encoding="ascii")
        print(f"wrote {out} (commit it; never commit {args.source})")
    elif args.command == "check-assignment":
        from .folder import AssignmentError, self_test

        try:
            lines = self_test(assignment)
        except AssignmentError as exc:
            _fail(parser, exc)
        print(f"{assignment.name}: {len(assignment.questions)} question(s), "
              f"{sum(assignment.points.values()):g} points; the notebook has every stub")
        print("\n".join(lines))
        print(f"{assignment.name} is ready: release it with python -m mlnotes.homework release")
    elif args.command == "new-notebook":
        from .folder import AssignmentError, new_notebook

        try:
            print(f"wrote {new_notebook(assignment, args.out)}")
        except AssignmentError as exc:
            _fail(parser, exc)
    elif args.command == "release":
        from .folder import AssignmentError, release

        try:
            names = release(assignment, args.out)
        except AssignmentError as exc:
            _fail(parser, exc)
        print(f"wrote {args.out}: {', '.join(names)} (give students this folder)")
    elif args.command == "student-version":
        from .notebook import write_student_version

        write_student_version(args.notebook, args.output)
        print(f"wrote {args.output}")
    elif assignment is not None:
        _list_one(assignment)
    else:
        _list()
    return 0


def _list_one(assignment):
    """Print one assignment's questions, their points and stubs."""
    print(f"{assignment.name} ({assignment.folder}):")
    for name, q in assignment.questions.items():
        print(f"  {name:32s} {assignment.points[name]:g} pt{'':26s} def {q.function}(...)")


def _list():
    """Print the assignments (graded questions with their points; warm-ups, which are chapter
    exercises with their solutions in the book, at 0 points) and the other chapter exercises."""
    from .bank import QUESTIONS

    def line(name, mark):
        return f"  {name:32s} {mark:32s} def {get_question(name).function}(...)"

    print("Graded set (encrypted key, a variant per student; --assignment NAME --key-file F):")
    for name, questions in sorted(GRADED.items()):
        print(f"{name}:")
        for q, points in questions.items():
            print(line(q, f"graded, {points:g} pt"))
    print("Practice set (public key; python -m mlnotes.homework grade ... --assignment NAME):")
    for name, questions in sorted(ASSIGNMENTS.items()):
        print(f"{name}:")
        for q, points in questions.items():
            print(line(q, f"graded, {points:g} pt" if points > 0 else
                       "warm-up: chapter exercise, 0 pt"))
    print("A course's own format (questions defined in the folder, a variant per student, a "
          "student-side check; the instructor's guide's worked example):")
    for name in sorted(OWN):
        _list_one(shipped(name))
    graded = {q for questions in ALL_ASSIGNMENTS.values() for q, p in questions.items() if p > 0}
    exercises = sorted(set(QUESTIONS) - graded)
    print("Chapter exercises (check(...) in the chapters, whose solutions are in the book; "
          "never graded):")
    for q in exercises:
        print(line(q, "chapter exercise"))


if __name__ == "__main__":
    sys.exit(main())
