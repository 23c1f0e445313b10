"""Placeholder, written next."""


def scheduler_pass(**plan_options):
    raise NotImplementedError
