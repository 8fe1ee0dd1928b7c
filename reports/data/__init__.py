"""reports' data floor: results files read and shaped into the tables every verdict and view draws from."""
