"""Command line: ``python -m mlnotes.homework {grade,grade-one,autograder,variant,encrypt-key,
student-version,list}``.

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
    the passphrase, or to ship a private fork's own questions.
student-version INSTRUCTOR.ipynb -o STUDENT.ipynb
    Replace the solution regions (### BEGIN SOLUTION / ### END SOLUTION) by stubs.
list
    The assignments, each question marked graded (points) or a warm-up (a chapter exercise,
    0 points), then the chapter exercises outside any assignment.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from .assignments import ALL_ASSIGNMENTS, ASSIGNMENTS, GRADED
from .bank import get_question


def _grading_options(parser):
    parser.add_argument("--assignment", required=True, choices=sorted(ALL_ASSIGNMENTS))
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
    sub.add_parser("list", help="list assignments and questions")
    bundle = sub.add_parser("autograder", help="build Gradescope's autograder.zip")
    bundle.add_argument("assignment", choices=sorted(ALL_ASSIGNMENTS))
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
    who.add_argument("--assignment", choices=sorted(GRADED), default=None)
    who.add_argument("--course-seed", default=None)
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

    if args.command == "grade":
        from .grader import grade_folder, isolation_warning
        from .handmark import FILE

        if not args.submissions.is_dir():
            parser.error(f"{args.submissions} is not a folder of submissions")
        start = time.perf_counter()
        try:
            results = grade_folder(args.submissions, args.assignment, args.out, jobs=args.jobs,
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
            grader = Grader(args.assignment, timeout=args.timeout, memory_mb=args.memory,
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
            build_bundle(args.assignment, args.out, include_passphrase=args.include_passphrase,
                         timeout=args.timeout, memory_mb=args.memory)
        except (ValueError, LookupError) as exc:
            parser.error(str(exc))
        print(f"wrote {args.out}")
    elif args.command == "variant":
        from .student import my_variant

        print(repr(my_variant(args.student, args.assignment)))
    elif args.command == "encrypt-key":
        from .keys import ENCRYPTED, encrypt, passphrase

        out = args.out or ENCRYPTED
        out.write_text(encrypt(args.source.read_text(encoding="utf-8"), passphrase()),
                       encoding="ascii")
        print(f"wrote {out} (commit it; never commit {args.source})")
    elif args.command == "student-version":
        from .notebook import write_student_version

        write_student_version(args.notebook, args.output)
        print(f"wrote {args.output}")
    else:
        _list()
    return 0


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
    graded = {q for questions in ALL_ASSIGNMENTS.values() for q, p in questions.items() if p > 0}
    exercises = sorted(set(QUESTIONS) - graded)
    print("Chapter exercises (check(...) in the chapters, whose solutions are in the book; "
          "never graded):")
    for q in exercises:
        print(line(q, "chapter exercise"))


if __name__ == "__main__":
    sys.exit(main())
