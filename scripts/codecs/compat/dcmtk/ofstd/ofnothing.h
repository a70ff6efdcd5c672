/* Intentionally empty: see ofdiag.h. */
