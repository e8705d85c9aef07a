"""Base vocabulary every layer shares: errors, diagnostics, element types, dimensions."""
