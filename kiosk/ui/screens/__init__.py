"""Screen builders: one module per family of screens, plus the dialogs and the TD menu."""
