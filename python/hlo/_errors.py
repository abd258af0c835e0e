"""The one exception the package raises for bad modules, inputs and runs."""


class HloError(Exception):
    """A module that does not parse or verify, an argument that does not fit
    its parameter, or a compile or run that failed.

    ``str(error)`` is the whole message as the command-line tools print it:
    ``file:line:col: error: ...``, the source line and a caret, where the
    error has a place in the module's text. ``file``, ``line`` and
    ``column`` are that place (None where there is none).
    """

    def __init__(self, message, file=None, line=None, column=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
