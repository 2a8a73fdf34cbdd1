"""Command line: ``python -m mlnotes.homework {grade,grade-one,student-version,list}``.

grade SUBMISSIONS_DIR --assignment NAME --out grades.csv [--solutions DIR --jobs N --timeout S
      --memory MB --block sklearn,...]
    Grade a folder of notebooks; writes the CSV, ``feedback/<student>.txt`` and
    ``results/<student>/results.json`` (Gradescope format) next to the CSV.
grade-one NOTEBOOK --assignment NAME --results results.json [--solutions DIR ...]
    Grade one notebook (e.g. inside a Gradescope autograder) and write its results.json.

The reference answers of the graded questions are the instructor's: ``--solutions DIR`` (the
folder holding ``reference.py``), else the environment variable MLNOTES_HOMEWORK_SOLUTIONS, else
``book/homework/instructor/`` of the checkout mlnotes runs from; without them nothing is graded.
Graded code can never read that folder.
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

from .assignments import ASSIGNMENTS
from .bank import get_question


def _grading_options(parser):
    parser.add_argument("--assignment", required=True, choices=sorted(ASSIGNMENTS))
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
    _grading_options(one)
    student = sub.add_parser("student-version", help="make the student version of a notebook")
    student.add_argument("notebook", type=Path)
    student.add_argument("-o", "--output", type=Path, required=True)
    sub.add_parser("list", help="list assignments and questions")
    args = parser.parse_args(argv)
    if getattr(args, "solutions", None) is not None:
        from .bank.solutions import use_solutions

        try:
            use_solutions(args.solutions)
        except FileNotFoundError as exc:
            parser.error(str(exc))

    if args.command == "grade":
        from .grader import grade_folder, isolation_warning

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
              f"wrote {args.out}, feedback/, results/ and grading.json (the seed, to grade "
              f"again on the same inputs) in {args.out.parent or '.'}")
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
        result = grader.grade_safely(shown_name(args.notebook.stem), args.notebook)
        write_new(args.results, json.dumps(gradescope_json(result), indent=1))
        print(f"{escape(result.student, 300)}: {result.total:g} / {result.max_total:g}")
        warning = isolation_warning(grader.isolation)
        if warning:
            print(warning, file=sys.stderr)
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

    print("Graded homework (python -m mlnotes.homework grade ... --assignment NAME):")
    for name, questions in sorted(ASSIGNMENTS.items()):
        print(f"{name}:")
        for q, points in questions.items():
            print(line(q, f"graded, {points:g} pt" if points > 0 else
                       "warm-up: chapter exercise, 0 pt"))
    graded = {q for questions in ASSIGNMENTS.values() for q, p in questions.items() if p > 0}
    exercises = sorted(set(QUESTIONS) - graded)
    print("Chapter exercises (check(...) in the chapters, whose solutions are in the book; "
          "never graded):")
    for q in exercises:
        print(line(q, "chapter exercise"))


if __name__ == "__main__":
    sys.exit(main())
