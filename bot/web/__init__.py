"""The live web board: a Telegram Mini App and signed links, served by aiohttp.

``auth`` checks who is asking, ``state`` turns a stored game into the page's JSON,
``hub`` carries "this game changed" to every open page, ``server`` serves the page and API.
"""
