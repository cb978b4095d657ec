"""The front end: the only package that touches libclang."""
