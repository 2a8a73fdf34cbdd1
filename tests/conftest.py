"""Test order: the tests marked ``slow`` first.

``make test`` runs the tests on two pytest-xdist workers, which take the tests in collection
order. A long test collected last (the PDF is printed in ``test_pdf.py``) would start when the
rest are nearly done and leave the other worker idle to the end; started first, it runs beside
the short ones (longest processing time first).
"""


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable
