# SPDX-License-Identifier: MIT
"""Independent Python models of every primitive, written from the specifications and used as the
oracle of the differential tests. They share no code with the C or assembly implementations."""
