"""iRemember's caregiver walks share their start: the user gets started and invites, then Anna,
on her own phone, makes an account from the link and accepts. web_caregiver.py walks (and checks)
these steps one by one; the other caregiver walks start from here."""
import webwalk
from webwalk import token_of


class Mum:
    """The user's phone after “Invite a family member”: its page, token, account id and the link."""

    def __init__(self, context, page, link):
        self.context, self.page, self.link = context, page, link
        self.token = token_of(page)
        self.account = page.evaluate("JSON.parse(localStorage.getItem('quire.session')).accountId")


def invite(browser, server, **phone_options):
    """The user gets started (a device account) and makes an invitation, as “Mum”."""
    context, user = webwalk.phone(browser, server, **phone_options)
    user.goto("/")
    user.get_by_role("button", name="Get Started").click()
    user.wait_for_selector("album-home")
    user.get_by_role("link", name="Family helping you").click()
    user.get_by_label("Your name, as your family knows you").fill("Mum")
    user.get_by_role("button", name="Invite a family member").click()
    link_field = user.get_by_label("The link")
    link_field.wait_for()
    return Mum(context, user, link_field.input_value())


def accept(browser, server, link, **phone_options):
    """Anna opens the link on her own phone, makes her account and accepts, as “Anna”: (context, page)
    on “Mum's album”."""
    context, anna = webwalk.phone(browser, server, **phone_options)
    anna.goto(link.replace(server.base, ""))
    anna.wait_for_selector("quire-signin")
    anna.get_by_label("User name").fill("anna")
    anna.get_by_label("Password").fill("a good password")
    anna.get_by_role("button", name="Create an account").click()
    anna.wait_for_selector("album-help-accept h1:has-text(\"Mum's album\")")
    anna.get_by_label("Your name, as they know you").fill("Anna")
    anna.get_by_role("button", name="Accept and help").click()
    anna.wait_for_selector("album-helped h1:has-text(\"Mum's album\")")
    return context, anna
