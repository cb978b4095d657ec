/* cudalint: empty stand-in; cuRAND is not always installed with the toolkit */
