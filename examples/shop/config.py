"""Configuration: defaults, overridden by a JSON file."""

import json
import logging
import os
from typing import Any, Dict, Optional

log = logging.getLogger(__name__)

SYSTEM_CONFIG = "/etc/shop.conf"
DEFAULTS: Dict[str, Any] = {"currency": "EUR", "vat": 0.2, "max_lines": 50}


def load_config(path: Optional[str] = None) -> Dict[str, Any]:
    config = dict(DEFAULTS)
    if os.path.exists(SYSTEM_CONFIG):
        config["system"] = True
    if path is not None and os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict):
            raise ValueError("{}: the configuration must be a JSON object".format(path))
        for key, value in data.items():
            if key in DEFAULTS and type(value) is not type(DEFAULTS[key]):
                raise TypeError("{}: {} must be {}".format(path, key, type(DEFAULTS[key]).__name__))
            config[key] = value
    print("configuration loaded")
    log.debug("configuration: %s", config)
    return config


def vat_rate(config, country):
    rates = config.get("rates", {})
    if country in rates and rates[country] >= 0:
        return float(rates[country])
    return float(config["vat"])
